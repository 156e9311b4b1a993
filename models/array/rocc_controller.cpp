#include "models/array/rocc_controller.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <iterator>
#include <functional>
#include <optional>
#include <queue>
#include <stdexcept>
#include <vector>

namespace cstsim {
namespace {

struct Command {
  enum Kind : uint8_t { Mvin, MvinAcc, Preload, PreloadKeep, Compute, Mvout };
  Kind kind;
  int64_t rows;       // DMA rows (mvin, mvout) or A rows (compute)
  int64_t row_bytes;  // bytes a DMA row moves
  int64_t cols = 0, depth = 0;  // compute, preload: output channels and reduction rows of the block
  RoccListener::Operand what = RoccListener::Operand::Input;  // an mvin's operand
};
using Operand = RoccListener::Operand;

// RoccTiming::commands' names, by Command::Kind.
constexpr const char* kKindNames[] = {"mvin", "mvin_acc", "preload", "preload_keep", "compute", "mvout"};

// One tile's commands, by the controller that runs them, in issue order.
struct Loop {
  std::vector<Command> ld, ex, st;
  int64_t loads_done = 0;  // last load complete
  int64_t ex_done = 0;     // last compute's results in the accumulator
};

// The tiles of a convolution (the host's tiled_conv: batch, output rows, output columns, output
// channels, kernel rows, kernel columns, input channels, outermost first) and what LoopConv
// issues for each.
class ConvLoops {
 public:
  explicit ConvLoops(const RoccLayerPlan& p) : p_(p), t_(p.tile) {
    if (t_.batches < 1 || t_.porows < 1 || t_.pocols < 1 || t_.pochs < 1 || t_.krows < 1 || t_.kcols < 1 || t_.kchs < 1)
      throw std::logic_error("rocc: a convolution tile with an empty dimension");
  }
  bool next(Loop& L) {
    if (done_) return false;
    const RoccParams& q = p_.params;
    const int64_t dim = q.dim;
    const int64_t B = std::min(t_.batches, p_.batch - b_), R = std::min(t_.porows, p_.out_rows - r_),
                  C = std::min(t_.pocols, p_.out_cols - c_), O = std::min(t_.pochs, p_.out_chs - o_),
                  KR = std::min(t_.krows, p_.krows - kr_), KC = std::min(t_.kcols, p_.kcols - kc_),
                  KCH = std::min(t_.kchs, p_.in_chs - kch_);
    const bool first_k = kr_ == 0 && kc_ == 0 && kch_ == 0;
    const bool last_k = kr_ + KR == p_.krows && kc_ + KC == p_.kcols && kch_ + KCH == p_.in_chs;
    const int64_t irows = (R - 1) * p_.stride + KR, icols = (C - 1) * p_.stride + KC;
    L = Loop{};
    if (first_k && q.bias)  // bias rows into the accumulator: a block of outputs a command
      for (int64_t b = 0; b < B; ++b)
        for (int64_t r = 0; r < R; ++r)
          for (int64_t c = 0; c < C; c += dim)
            for (int64_t o = 0; o < O; o += dim)
              L.ld.push_back({Command::MvinAcc, std::min(dim, C - c), std::min(dim, O - o) * q.acc_bytes, 0, 0, Operand::Bias});
    for (int64_t o = 0; o < O; o += q.mvin_max_cols)  // weights: kernel-channel rows of output channels
      for (int64_t kr = 0; kr < KR; ++kr)
        for (int64_t kc = 0; kc < KC; ++kc)
          for (int64_t k = 0; k < KCH; k += dim)
            L.ld.push_back({Command::Mvin, std::min(dim, KCH - k), std::min(q.mvin_max_cols, O - o) * q.in_bytes, 0, 0, Operand::Weight});
    for (int64_t b = 0; b < B; ++b)  // inputs: a pixel's channels a row
      for (int64_t r = 0; r < irows; ++r)
        for (int64_t c = 0; c < icols; c += dim)
          for (int64_t k = 0; k < KCH; k += q.mvin_max_cols)
            L.ld.push_back({Command::Mvin, std::min(dim, icols - c), std::min(q.mvin_max_cols, KCH - k) * q.in_bytes});
    // A first layer's few channels: several kernel columns share one block of rows.
    const int64_t per_row = KCH < dim ? std::max<int64_t>(1, std::min(KC, dim / KCH)) : 1;
    for (int64_t o = 0; o < O; o += dim)
      for (int64_t kr = 0; kr < KR; ++kr)
        for (int64_t kc = 0; kc < KC; kc += per_row)
          for (int64_t k = 0; k < KCH; k += dim)
            for (int64_t b = 0; b < B; ++b)
              for (int64_t r = 0; r < R; ++r)
                for (int64_t c = 0; c < C; c += dim) {
                  const bool fresh = b == 0 && r == 0 && c == 0;
                  const int64_t cols = std::min(dim, O - o), depth = std::min(dim, KCH - k) * std::min(per_row, KC - kc);
                  L.ex.push_back({fresh ? Command::Preload : Command::PreloadKeep, 0, 0, cols, depth});
                  L.ex.push_back({Command::Compute, std::min(dim, C - c), 0, cols, depth});
                }
    if (last_k)
      for (int64_t b = 0; b < B; ++b)
        for (int64_t r = 0; r < R; ++r)
          for (int64_t c = 0; c < C; c += dim)
            for (int64_t o = 0; o < O; o += q.mvin_max_cols)
              L.st.push_back({Command::Mvout, std::min(dim, C - c), std::min(q.mvin_max_cols, O - o) * q.out_bytes, 0, 0, Operand::Output});
    advance();
    return true;
  }

 private:
  // kch innermost, then kcol, krow, och, ocol, orow, batch.
  void advance() {
    if ((kch_ += t_.kchs) < p_.in_chs) return;
    kch_ = 0;
    if ((kc_ += t_.kcols) < p_.kcols) return;
    kc_ = 0;
    if ((kr_ += t_.krows) < p_.krows) return;
    kr_ = 0;
    if ((o_ += t_.pochs) < p_.out_chs) return;
    o_ = 0;
    if ((c_ += t_.pocols) < p_.out_cols) return;
    c_ = 0;
    if ((r_ += t_.porows) < p_.out_rows) return;
    r_ = 0;
    if ((b_ += t_.batches) < p_.batch) return;
    done_ = true;
  }
  const RoccLayerPlan& p_;
  const RoccConvTile t_;
  int64_t b_ = 0, r_ = 0, c_ = 0, o_ = 0, kr_ = 0, kc_ = 0, kch_ = 0;
  bool done_ = false;
};

// The tiles of a matrix product (the host's tiled_matmul: i, j, k, k innermost) and what
// LoopMatmul issues for each.
class MatmulLoops {
 public:
  explicit MatmulLoops(const RoccLayerPlan& p) : p_(p) {
    if (p.tile_i < 1 || p.tile_j < 1 || p.tile_k < 1 || p.I < 1 || p.J < 1 || p.K < 1)
      throw std::logic_error("rocc: a matmul tile with an empty dimension");
  }
  bool next(Loop& L) {
    if (done_) return false;
    const RoccParams& q = p_.params;
    const int64_t dim = q.dim;
    const int64_t I = std::min(p_.tile_i * dim, p_.I - i_), J = std::min(p_.tile_j * dim, p_.J - j_),
                  K = std::min(p_.tile_k * dim, p_.K - k_);
    const bool first_k = k_ == 0, last_k = k_ + K == p_.K;
    L = Loop{};
    if (first_k && q.bias)
      for (int64_t i = 0; i < I; i += dim)
        for (int64_t j = 0; j < J; j += dim)
          L.ld.push_back({Command::MvinAcc, std::min(dim, I - i), std::min(dim, J - j) * q.acc_bytes, 0, 0, Operand::Bias});
    for (int64_t k = 0; k < K; k += dim)  // B: rows of K, up to mvin_max_cols columns of J
      for (int64_t j = 0; j < J; j += q.mvin_max_cols)
        L.ld.push_back({Command::Mvin, std::min(dim, K - k), std::min(q.mvin_max_cols, J - j) * q.in_bytes, 0, 0, Operand::Weight});
    for (int64_t i = 0; i < I; i += dim)  // A: rows of I, up to mvin_max_cols columns of K
      for (int64_t k = 0; k < K; k += q.mvin_max_cols)
        L.ld.push_back({Command::Mvin, std::min(dim, I - i), std::min(q.mvin_max_cols, K - k) * q.in_bytes});
    for (int64_t j = 0; j < J; j += dim)
      for (int64_t k = 0; k < K; k += dim)
        for (int64_t i = 0; i < I; i += dim) {
          const int64_t cols = std::min(dim, J - j), depth = std::min(dim, K - k);
          L.ex.push_back({i == 0 ? Command::Preload : Command::PreloadKeep, 0, 0, cols, depth});
          L.ex.push_back({Command::Compute, std::min(dim, I - i), 0, cols, depth});
        }
    if (last_k)
      for (int64_t i = 0; i < I; i += dim)
        for (int64_t j = 0; j < J; j += q.mvin_max_cols)
          L.st.push_back({Command::Mvout, std::min(dim, I - i), std::min(q.mvin_max_cols, J - j) * q.out_bytes, 0, 0, Operand::Output});
    if ((k_ += p_.tile_k * dim) >= p_.K) {
      k_ = 0;
      if ((j_ += p_.tile_j * dim) >= p_.J) {
        j_ = 0;
        if ((i_ += p_.tile_i * dim) >= p_.I) done_ = true;
      }
    }
    return true;
  }

 private:
  const RoccLayerPlan& p_;
  int64_t i_ = 0, j_ = 0, k_ = 0;
  bool done_ = false;
};

// One direction of the DMA: requests of at most request_bytes, at most one issued a cycle and
// max_in_flight outstanding; a read's data (a write's data) takes the bus a beat a cycle.
class DmaWay {
 public:
  explicit DmaWay(const RoccParams& q) : q_(q), ring_(size_t(q.max_in_flight), 0) {}
  // Moves `rows` rows of `row_bytes`, a row asked for each cycle from `start`; returns the cycle
  // after the last request completes, and the cycle after the last row was asked for in `asked`.
  int64_t move(int64_t start, int64_t rows, int64_t row_bytes, bool read, int64_t& asked) {
    int64_t last = start, row_time = std::max(start, next_row_);
    for (int64_t r = 0; r < rows; ++r, ++row_time) {
      for (int64_t left = row_bytes; left > 0;) {
        const int64_t bytes = std::min(left, q_.request_bytes);
        left -= bytes;
        int64_t& slot = ring_[head_];
        const int64_t issue = std::max({row_time, next_issue_, slot});
        next_issue_ = issue + 1;
        // Cycles its data holds the bus (a bus of under a byte a cycle takes several a byte).
        const int64_t beats = int64_t(std::ceil(double(bytes) / q_.bus_bytes_per_cycle));
        // A read's data comes back after the latency; a write's goes out first and is acked after it.
        const int64_t data = std::max(read ? issue + q_.latency : issue, bus_free_);
        bus_free_ = data + beats;
        slot = read ? bus_free_ : bus_free_ + q_.latency;
        last = std::max(last, slot);
        head_ = (head_ + 1) % ring_.size();
        ++requests;
        this->bytes += bytes;
        row_time = std::max(row_time, issue);
      }
    }
    next_row_ = row_time;
    asked = row_time;
    return last;
  }
  int64_t requests = 0, bytes = 0;

 private:
  const RoccParams& q_;
  std::vector<int64_t> ring_;  // completion of each of the last max_in_flight requests
  size_t head_ = 0;
  int64_t next_issue_ = 0, next_row_ = 0, bus_free_ = 0;
};

}  // namespace

RoccTiming time_rocc_layer(const RoccLayerPlan& plan, RoccListener* listener) {
  const RoccParams& q = plan.params;
  if (q.dim < 1 || !(q.bus_bytes_per_cycle > 0) || q.request_bytes < 1 || q.max_in_flight < 1 || q.rob_entries < 1 ||
      q.mvins_in_flight < 1 || q.latency < 0)
    throw std::logic_error("rocc: controller parameters out of range");
  RoccTiming out;
  const bool is_conv = plan.loop == RoccLayerPlan::Loop::Conv;
  std::optional<ConvLoops> conv;
  std::optional<MatmulLoops> matmul;
  if (is_conv)
    conv.emplace(plan);
  else
    matmul.emplace(plan);
  int64_t repeat = 0;  // matmul: the product being issued
  auto next_loop = [&](Loop& L) {
    if (is_conv) return conv->next(L);
    while (!matmul->next(L)) {
      if (++repeat >= plan.repeats) return false;
      matmul.emplace(plan);
    }
    return true;
  };

  // Loops in flight, oldest first; the streams' positions.
  std::deque<Loop> loops;
  int64_t first_loop = 0;  // index of loops.front()
  bool more = true;
  auto loop_at = [&](int64_t index) -> Loop* {
    while (more && index >= first_loop + int64_t(loops.size())) {
      loops.emplace_back();
      if (!next_loop(loops.back())) {
        loops.pop_back();
        more = false;
      } else {
        ++out.loops;
      }
    }
    return index < first_loop + int64_t(loops.size()) ? &loops[size_t(index - first_loop)] : nullptr;
  };
  struct Stream {
    int64_t loop = 0;
    size_t at = 0;
  } ld, ex, st;

  DmaWay reads(q), writes(q);
  std::vector<int64_t> mvin_slots(size_t(q.mvins_in_flight), 0);
  size_t mvin_head = 0;
  int64_t ex_free = 0, st_free = 0, last_complete = 0;
  int64_t counts[std::size(kKindNames)] = {};       // commands by kind
  int64_t waited_for_loads = 0, waited_for_issue = 0;  // the execute controller's idle cycles
  std::priority_queue<int64_t, std::vector<int64_t>, std::greater<int64_t>> rob;  // completion cycles
  int64_t now = 0;

  // A stream's loop is done issuing when its position has passed that loop's list.
  auto finished = [&](const Stream& s, std::vector<Command> Loop::*list) {
    Loop* L = loop_at(s.loop);
    return !L || s.at >= (L->*list).size();
  };
  auto step_over_empty = [&](Stream& s, std::vector<Command> Loop::*list, int64_t limit) {
    while (s.loop < limit) {
      Loop* L = loop_at(s.loop);
      if (!L || s.at < (L->*list).size()) return;
      ++s.loop;
      s.at = 0;
    }
  };

  while (true) {
    // Retire what is complete; wait for an entry when the buffer is full.
    while (!rob.empty() && rob.top() <= now) rob.pop();
    if (int64_t(rob.size()) >= q.rob_entries) {
      out.rob_full_cycles += rob.top() - now;
      now = rob.top();
      continue;
    }
    // A stream may issue loop t's commands once it has issued every earlier loop's, and:
    // ex once ld has issued all of loop t; st once ex has; ld of loop t once st has issued all
    // of loop t - 2 (two loops in flight).
    for (int64_t moved = -1; moved != st.loop + ex.loop + ld.loop;) {
      moved = st.loop + ex.loop + ld.loop;
      step_over_empty(st, &Loop::st, ex.loop);
      step_over_empty(ex, &Loop::ex, ld.loop);
      step_over_empty(ld, &Loop::ld, st.loop + 2);
    }
    const bool st_ready = st.loop < ex.loop && !finished(st, &Loop::st);
    const bool ex_ready = ex.loop < ld.loop && !finished(ex, &Loop::ex);
    const bool ld_ready = ld.loop < st.loop + 2 && !finished(ld, &Loop::ld);
    if (!st_ready && !ex_ready && !ld_ready) {
      if (loop_at(ld.loop) || loop_at(ex.loop) || loop_at(st.loop))
        throw std::logic_error("rocc: the command streams are stuck");
      break;  // every loop issued
    }
    int64_t complete = 0;
    if (st_ready) {
      Loop& L = *loop_at(st.loop);
      const Command& c = L.st[st.at++];
      const int64_t start = std::max({now, st_free, L.ex_done});
      int64_t asked = 0;
      complete = writes.move(start, c.rows, c.row_bytes, false, asked);
      st_free = asked;
      if (listener) listener->moved(complete, c.what, c.rows * c.row_bytes);
      ++counts[c.kind];
      if (st.at >= L.st.size()) ++st.loop, st.at = 0;
    } else if (ex_ready) {
      Loop& L = *loop_at(ex.loop);
      const Command& c = L.ex[ex.at++];
      const int64_t start = std::max({now, ex_free, L.loads_done});
      if (start > ex_free) (L.loads_done > now ? waited_for_loads : waited_for_issue) += start - ex_free;
      int64_t busy = 0;
      if (c.kind == Command::Compute) {
        busy = q.padded_compute ? q.dim : std::max<int64_t>(c.rows, 4);
        out.rows_streamed += c.rows;
        out.macs += c.rows * c.cols * c.depth;
        out.mapped_pe_cycles += busy * c.cols * c.depth;
        if (listener) listener->compute(start, busy, c.rows, c.cols, c.depth);
      } else if (c.kind == Command::Preload) {
        if (start > ex_free) busy = q.dim;  // nothing to hide the weights' shift behind: the mesh waits for them
        if (listener) listener->preload(start, c.cols, c.depth);
      }
      ex_free = start + busy;
      out.mesh_cycles += busy;
      complete = ex_free + (c.kind == Command::Compute ? q.mesh_latency : 0);
      L.ex_done = std::max(L.ex_done, complete);
      ++counts[c.kind];
      if (ex.at >= L.ex.size()) ++ex.loop, ex.at = 0;
    } else {
      Loop& L = *loop_at(ld.loop);
      const Command& c = L.ld[ld.at++];
      // The scratchpad half it fills was read by the loop two before.
      int64_t start = std::max(now, mvin_slots[mvin_head]);
      if (ld.loop - 2 >= first_loop) start = std::max(start, loops[size_t(ld.loop - 2 - first_loop)].ex_done);
      int64_t asked = 0;
      complete = reads.move(start, c.rows, c.row_bytes, true, asked);
      if (listener) listener->moved(complete, c.what, c.rows * c.row_bytes);
      mvin_slots[mvin_head] = complete;
      mvin_head = (mvin_head + 1) % mvin_slots.size();
      L.loads_done = std::max(L.loads_done, complete);
      ++counts[c.kind];
      if (ld.at >= L.ld.size()) ++ld.loop, ld.at = 0;
    }
    rob.push(complete);
    last_complete = std::max(last_complete, complete);
    ++now;
    // Loops every stream has passed (and that no later load still waits on) are forgotten.
    while (!loops.empty() && first_loop + 2 < std::min({ld.loop, ex.loop, st.loop})) {
      loops.pop_front();
      ++first_loop;
    }
  }
  out.cycles = std::max<int64_t>(last_complete, 1);
  for (size_t k = 0; k < std::size(kKindNames); ++k)
    if (counts[k]) out.commands[kKindNames[k]] = counts[k];
  out.idle = {{"rocc_dma", waited_for_loads}, {"rocc_issue", waited_for_issue},
              {"rocc_drain", std::max<int64_t>(0, out.cycles - ex_free)}};
  out.bytes_read = reads.bytes;
  out.bytes_written = writes.bytes;
  out.read_requests = reads.requests;
  out.write_requests = writes.requests;
  int64_t sum = out.mesh_cycles;
  for (const auto& [k, v] : out.idle) sum += v;
  if (sum != out.cycles)
    throw std::logic_error("rocc: the execute controller's busy and idle cycles do not add up to the layer's");
  return out;
}

}  // namespace cstsim
