#pragma once
// The serving loop: iteration-level continuous batching in the style of Orca and vLLM. Each
// iteration the scheduler takes the running requests first (oldest admitted first: a decode token
// each, or the next chunk of a prefill), then admits waiting requests in arrival order while the
// token budget, the sequence limit and the KV cache's free blocks allow. The KV cache is paged:
// a request holds ceil(tokens cached / block_tokens) blocks. When a running request needs a block
// and none is free, the most recently admitted request not yet in the batch is preempted by
// recompute: its blocks are freed and it goes back to the head of the queue, to prefill its
// prompt and every token it has generated again (vLLM's default). The pricer gives each
// iteration's time; the clock advances by it.
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/serve/requests.h"

namespace cstsim::serve {

struct SchedulerConfig {
  int64_t token_budget = 512;  // tokens an iteration processes at most (chunked prefill)
  int64_t max_seqs = 256;      // requests in one iteration at most
  int64_t block_tokens = 16;   // tokens per KV-cache block
  int64_t kv_blocks = 0;       // blocks the cache holds
};

// One request's share of an iteration: q new tokens over `context` tokens already cached.
struct BatchItem {
  int request = 0;
  int64_t q = 0, context = 0;
  bool prefill = false;  // a prompt chunk (or a recompute); else one decode token
  bool emits = false;    // it ends with a new token (a decode, or a prefill's last chunk)
};

struct Batch {
  std::vector<BatchItem> items;
  int64_t tokens() const;
  int64_t emitting() const;
};

// What an iteration costs on the chip.
struct StepCost {
  double seconds = 0;
  double energy_j = 0;
};
using Pricer = std::function<StepCost(const Batch&)>;

struct RequestLog {
  Request request;
  double scheduled_s = -1, first_token_s = -1, finish_s = -1;
  int preemptions = 0;
  int64_t recomputed_tokens = 0;  // tokens whose K and V preemptions discarded (computed again)
  int64_t generated = 0;
};

struct IterationLog {
  double start_s = 0, seconds = 0, energy_j = 0;
  int64_t tokens = 0, prefill_tokens = 0, decode_tokens = 0, seqs = 0;
  int64_t kv_blocks = 0;            // in use after the iteration
  int64_t waiting = 0, running = 0; // after the iteration: arrived and not admitted; admitted and not finished
  int preempted = 0;
};

struct ServeResult {
  std::vector<RequestLog> requests;  // by id
  std::vector<IterationLog> iterations;
  int64_t kv_blocks_peak = 0;
  double end_s = 0;
};

// Serves every request to its last token. Throws InputError when a request could never fit the
// cache (its prompt and output need more blocks than it holds) and std::logic_error when a law of
// the loop breaks (a block counted twice, a token lost).
ServeResult serve(const RequestSet& requests, const SchedulerConfig& config, const Pricer& price);

}  // namespace cstsim::serve
