#pragma once
// Flash attention as one kernel (sim/mapper/flash_plan.h makes it): for each (batch, head) and
// each block of q_block queries, the array computes the block's scores against a block of
// kv_block keys (Q_i K_j^T), the vector unit runs the online softmax over them (running max and
// sum, rescaling the partial output), the array multiplies the probabilities by V_j into the
// block's output, and after the last key block the vector unit normalizes it; only Q, K, V and
// O move through HBM. K_j and V_j stay on chip for every query block of a head when the whole
// of them fits (kv_block = Skv, read once per KV head), else each query block reads them anew.
// With causal masking the key blocks wholly above a query block's diagonal are skipped.
#include <cstdint>
#include <string>

namespace cstsim {

struct FlashKernelPlan {
  std::string name;
  int64_t batch = 1, heads = 1, kv_heads = 1, Sq = 0, Skv = 0, d = 0;
  bool causal = false;
  int64_t element_bytes = 2;
  int64_t q_block = 1, kv_block = 1;
  bool kv_resident = false;  // kv_block == Skv: a KV head's K and V are read once
  uint64_t q_addr = 0, k_addr = 0, v_addr = 0, o_addr = 0;  // memory: hierarchy: each tensor's first byte
  int line = 0;
  int64_t groups() const { return batch * heads; }
  int64_t q_blocks() const { return (Sq + q_block - 1) / q_block; }
  int64_t kv_blocks() const { return (Skv + kv_block - 1) / kv_block; }
  int64_t q_rows(int64_t i) const { return i + 1 < q_blocks() ? q_block : Sq - i * q_block; }
  int64_t kv_rows(int64_t j) const { return j + 1 < kv_blocks() ? kv_block : Skv - j * kv_block; }
  // Whether query block i sees key block j: causal attention skips the blocks wholly above the
  // diagonal (queries aligned to the last Sq keys, as a prefill after a cache of Skv - Sq).
  bool sees(int64_t i, int64_t j) const {
    return !causal || j * kv_block <= (Skv - Sq) + (i * q_block + q_rows(i) - 1);
  }
};

}  // namespace cstsim
