#pragma once
// What an iteration of the serving loop costs on the modelled chip. An iteration of T tokens is
// priced as its parts, each a graph simulated by `cstsim run` in a child process (one simulation
// per process) on the run's arch:
//   - a decoder block without its attention, for T tokens (norms, Q/K/V/O projections, RoPE,
//     FFN, residual adds): `dense`;
//   - each request's attention in one block, q new tokens over c cached (the KV append, then
//     attention over c + q keys, causal): `attention`;
//   - the final norm and LM head for the S requests that emit a token: `head`.
// iteration = layers x (dense(T) + sum over requests of attention(q, c)) + head(S).
// Each part is simulated at points of a grid (T and S: 1, 16, 64, 128, then steps of 128; c: 0,
// 512, then steps of 1024) and interpolated linearly between them (bilinearly in q and
// c); every point is simulated once and memoized, on disk too with a cache directory (keyed by the
// resolved arch, the graph, the fidelity, the version and the commit: another build simulates anew). The
// interpolation and the sum of parts are estimates: the summary says so and gives their measured
// error (`check_points`: points off the grid simulated and compared).
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "sim/serve/scheduler.h"
#include "sim/serve/serve_model.h"

namespace cstsim::serve {

struct PricerOptions {
  std::string arch;                                           // the arch file
  std::vector<std::pair<std::string, std::string>> overrides; // --set
  std::string fidelity = "sampled";                           // the children's --fidelity
  std::string work_dir;                                       // where the part graphs and runs go
  std::string cache_dir;                                      // "" : memoized for this run only
  std::string arch_key;                                       // what makes the arch's cache entries its own
  int64_t token_budget = 512, max_seqs = 256, max_context = 4096;
  bool progress = true;
  // Each iteration's own graph (the parts in run order, every layer, no grid) simulated whole,
  // memoized by its batch: what the parts and the grid estimate (--pricing iteration).
  bool whole_iterations = false;
};

// One simulated point.
struct PricePoint {
  std::string part;   // dense | attention | head
  int64_t q = 0, c = 0;
  double seconds = 0, ci95_s = 0;
  bool from_cache = false;
  double cpu_s = 0;   // the child's time (0 from the cache)
};

// A part off the grid simulated at the end of a run and compared with its interpolated price.
struct CheckPoint {
  std::string part;
  int64_t q = 0, c = 0;
  int64_t uses = 0;  // how often the run priced it
  double interpolated_s = 0, simulated_s = 0;
  double error() const { return interpolated_s / simulated_s - 1; }
};

class StepPricer {
 public:
  StepPricer(PricerOptions o, ServeModel m);
  StepCost price(const Batch& b);
  // The parts, interpolated on the grid (seconds).
  double dense(int64_t tokens);
  double attention(int64_t q, int64_t context);
  double head(int64_t seqs);
  // A part simulated at exactly (q, c) (memoized like the grid's).
  double simulate(const std::string& part, int64_t q, int64_t c);
  const std::map<std::tuple<std::string, int64_t, int64_t>, PricePoint>& points() const { return points_; }
  // The graph of a part at (q, c), as YAML text.
  std::string graph(const std::string& part, int64_t q, int64_t c) const;
  // An iteration's whole graph: every layer's dense part and requests' attention, then the head.
  std::string iteration_graph(const Batch& b) const;
  // whole_iterations: each iteration's simulation, in run order.
  const std::vector<PricePoint>& iterations() const { return iterations_; }
  // Simulates the grid points most runs need (dense and the first heads at every token point,
  // attention of one token at every context point and of every token point over none), `jobs`
  // children at a time, before the loop asks for them one by one.
  void prefetch(int jobs);
  // For each part, the off-grid point the run priced most often, simulated and compared with its
  // interpolation: the grid's measured error on this run.
  std::vector<CheckPoint> check();
  const std::vector<int64_t>& token_grid() const { return t_grid_; }
  const std::vector<int64_t>& context_grid() const { return c_grid_; }

 private:
  PricerOptions o_;
  ServeModel m_;
  std::vector<int64_t> t_grid_, c_grid_, s_grid_;
  std::map<std::tuple<std::string, int64_t, int64_t>, PricePoint> points_;
  std::map<std::string, PricePoint> by_batch_;
  std::map<std::tuple<std::string, int64_t, int64_t>, int64_t> off_grid_uses_;
  std::vector<PricePoint> iterations_;
  // A part's tensors and ops, names prefixed by `prefix`.
  void emit(const std::string& part, int64_t q, int64_t c, const std::string& prefix, std::ostream& tensors,
            std::ostream& ops) const;
  // Simulates a graph (or takes it from the cache): p.seconds, p.ci95_s, p.cpu_s, p.from_cache.
  void run_graph(const std::string& text, const std::string& stem, PricePoint& p);
};

// The grid's points: 1, 16, 64, 128, then multiples of 128 up to `top` (and top itself).
std::vector<int64_t> token_grid(int64_t top);
// 0, 512, then multiples of 1024 up to `top` (and top itself).
std::vector<int64_t> context_grid(int64_t top);

}  // namespace cstsim::serve
