#pragma once
// `cstsim plan --explore`: a traffic-optimal tiling of one GEMM layer through the
// scratchpad, an estimate beside the plan and not what runs. It picks the on-chip block
// of every operand (double-buffered in its SRAM partition), the loop order and which
// operand stays resident, minimising the bytes moved between HBM and the scratchpad.
// What the simulator executes is the mapper's Plan (sim/mapper/mapper.h), whose DMA
// programs stream folds as plan/dma_program.h describes.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/arch_spec.h"
#include "sim/workload/workload.h"

namespace cstsim {

struct TilingPlan {
  std::string layer;
  Dataflow dataflow = Dataflow::WS;
  int R = 0, C = 0;
  int64_t M = 0, N = 0, K = 0;
  // The dataflow's view (fold_plan.h): stationary Sr x Sc, stream length T.
  int64_t Sr = 0, Sc = 0, T = 0;
  // On-chip block, in elements: Sr_block x Sc_block stationary, T_block stream rows.
  int64_t sr_block = 0, sc_block = 0, t_block = 0;
  int64_t sr_blocks = 0, sc_blocks = 0, t_blocks = 0;
  // Loop nest, outer to inner, over block indices.
  std::string loop_order;  // "sc > sr > t" (stationary resident) or "sc > t > sr" (outputs resident)
  std::string resident;    // what stays in SRAM across the innermost loop
  // SRAM partitions (bytes), and the bytes each block needs there (double-buffered).
  int64_t ifmap_sram = 0, filter_sram = 0, ofmap_sram = 0;
  int64_t ifmap_need = 0, filter_need = 0, ofmap_need = 0;
  // DRAM traffic of the plan, bytes.
  int64_t hbm_read_ifmap = 0, hbm_read_filter = 0, hbm_write_ofmap = 0, hbm_read_psum = 0;
  int64_t dma_transfers = 0;  // block transfers issued
  std::string why;            // the choice, in words

  int64_t hbm_bytes() const { return hbm_read_ifmap + hbm_read_filter + hbm_write_ofmap + hbm_read_psum; }
};

// Throws InputError naming the layer (workload file and line) and the sizes when
// even the smallest tile cannot fit, or when the arch declares no scratchpad.
TilingPlan make_tiling_plan(const ArchSpec& arch, const Layer& layer, const std::string& workload_file);

nlohmann::ordered_json to_json(const TilingPlan& plan);
std::string plan_table(const std::vector<TilingPlan>& plans);

}  // namespace cstsim
