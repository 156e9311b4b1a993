#include "sim/mapper/flash_plan.h"

#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "core/input_error.h"
#include "sim/mapper/tensor_places.h"

namespace cstsim {

std::vector<Placed<FlashKernelPlan>> plan_flash_kernels(const ArchSpec& a, const Workload& w,
                                                        const std::vector<LayerPlan>& layers,
                                                        const std::vector<Placed<VectorKernelPlan>>& vector, uint64_t& next) {
  std::vector<Placed<FlashKernelPlan>> kernels;
  if (w.flash.empty()) return kernels;
  const int64_t ifmap = a.ifmap_sram_kib * 1024, ofmap = a.ofmap_sram_kib * 1024, filter = a.filter_sram_kib * 1024;
  constexpr int64_t kAcc = 4;  // scores and output accumulators: fp32
  auto most = [](int64_t partition, int64_t per_row, int64_t cap) {
    return partition <= 0 ? cap : std::min(cap, partition / per_row);
  };
  for (const FlashAttention& f : w.flash) {
    if (a.vector.lanes == 0)
      throw InputError(w.source, f.line, f.name,
                       "flash attention runs its online softmax on the vector unit: the arch has none (vector.lanes)");
    FlashKernelPlan k;
    k.name = f.name;
    k.batch = f.batch;
    k.heads = f.heads;
    k.kv_heads = f.kv_heads;
    k.Sq = f.Sq;
    k.Skv = f.Skv;
    k.d = f.d;
    k.causal = f.causal;
    k.element_bytes = std::max(1, (f.dtype_bits + 7) / 8);
    k.line = f.line;
    const int64_t e = k.element_bytes;
    // K and V rows (2 d e bytes a key), double-buffered.
    k.kv_block = most(ifmap, 2 * 2 * k.d * e, k.Skv);
    k.kv_resident = k.kv_block == k.Skv;
    // A query row: two tiles of scores, two Q rows, an fp32 output row.
    const int64_t q_scores = most(ofmap, 2 * k.kv_block * kAcc, k.Sq);
    const int64_t q_io = most(filter, 2 * k.d * e + k.d * kAcc, k.Sq);
    k.q_block = std::min(q_scores, q_io);
    if (k.kv_block < 1 || k.q_block < 1)
      throw InputError(w.source, k.line, k.name,
                       fmt::format("not one {} row fits on chip (ifmap {} B for K and V, ofmap {} B for scores, filter "
                                   "{} B for Q and the output)",
                                   k.kv_block < 1 ? "key" : "query", ifmap, ofmap, filter));
    // Blocks of even size (4097 keys: 2049 + 2048, not 4096 + 1), so each step's loads hide behind
    // the step before.
    auto even = [](int64_t n, int64_t most) { return (n + (n + most - 1) / most - 1) / ((n + most - 1) / most); };
    k.kv_block = even(k.Skv, k.kv_block);
    k.q_block = even(k.Sq, k.q_block);
    kernels.push_back({k, f.before_layer, f.order});
  }
  if (a.memory != MemoryMode::Hierarchy) return kernels;
  TensorPlaces places(layers, next);  // q, k and v where the layers and the vector kernels put them
  places.keep(vector);
  for (size_t i = 0; i < kernels.size(); ++i) {
    FlashKernelPlan& k = kernels[i].kernel;
    const FlashAttention& f = w.flash[i];
    const int64_t q_bytes = k.batch * k.Sq * k.heads * k.d * k.element_bytes;
    const int64_t kv_bytes = k.batch * k.Skv * k.kv_heads * k.d * k.element_bytes;
    k.q_addr = places.at(f.q, q_bytes);
    k.k_addr = places.at(f.k, kv_bytes);
    k.v_addr = places.at(f.v, kv_bytes);
    k.o_addr = places.at(f.out, q_bytes);
  }
  return kernels;
}

}  // namespace cstsim
