#include "sim/config/accelerator_spec.h"

namespace cstsim {

spad::ScratchpadParams scratchpad_params(const ArchSpec& a) {
  spad::ScratchpadParams p;
  p.ifmap_bytes = a.ifmap_sram_kib * 1024;
  p.filter_bytes = a.filter_sram_kib * 1024;
  p.ofmap_bytes = a.ofmap_sram_kib * 1024;
  p.total_bytes = p.ifmap_bytes + p.filter_bytes + p.ofmap_bytes;
  p.banks = a.scratchpad.banks;
  p.word_bytes = a.scratchpad.word_bytes;
  p.ports_per_bank = a.scratchpad.ports_per_bank;
  p.read_latency = a.scratchpad.read_latency;
  p.write_latency = a.scratchpad.write_latency;
  return p;
}

std::vector<std::pair<int, int>> cluster_routers(const ArchSpec& a, int cols, int rows, int clusters) {
  const int x0 = a.noc.cluster_x < 0 ? cols / 2 : a.noc.cluster_x, y0 = a.noc.cluster_y < 0 ? rows / 2 : a.noc.cluster_y;
  std::vector<std::pair<int, int>> out;
  for (int k = 0; k < clusters; ++k) {
    const int i = y0 * cols + x0 + k;
    out.emplace_back(i % cols, i / cols);
  }
  return out;
}

AcceleratorSpec accelerator_spec(const ArchSpec& a) {
  AcceleratorSpec s;
  s.name = a.name;
  s.clusters = a.clusters;
  s.array = {a.rows, a.cols, a.dataflow, a.precision, a.skip_2_4, a.zero_gating};
  s.fold_pipeline = a.fold_pipeline;
  s.clock_hz = a.clock_hz;
  s.memory = a.memory;
  s.channel = a.channel;
  s.hbm_dma = {a.hbm.fifo_tiles, a.hbm.max_outstanding, a.hbm.request_bytes, a.hbm.requests_per_cycle,
               a.hbm.controller_queue_flits};
  s.hbm = a.hbm_spec;
  s.noc = a.noc_config;
  s.vector = {a.vector.lanes, {a.vector.add_per_lane, a.vector.mul_per_lane, a.vector.special_per_lane},
              a.vector.port_bytes, a.vector.latency};
  s.rs = {a.rs.filter_spad, a.rs.ifmap_spad, a.rs.psum_spad};
  if (s.memory == MemoryMode::Hierarchy) {
    s.cluster_routers = cluster_routers(a, s.noc.cols, s.noc.rows, a.clusters);
    s.scratchpad = scratchpad_params(a);
  }
  return s;
}

}  // namespace cstsim
