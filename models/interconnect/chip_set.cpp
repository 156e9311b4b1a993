#include "models/interconnect/chip_set.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "core/arith.h"
#include "models/interconnect/algorithms/i_collective_algorithm.h"
#include "plan/vector_kernel.h"

namespace cstsim::ic {

ChipSet::ChipSet(ChipSetParams params, std::vector<CollectiveKernelPlan> collectives, trace::TraceSink* sink)
    : params_(std::move(params)),
      collectives_(std::move(collectives)),
      sink_(sink),
      fabric_(params_.topology, params_.link),
      barriers_(collectives_.size()),
      run_of_(collectives_.size(), -1),
      marks_(size_t(params_.chips), 0),
      announced_uses_(params_.topology.links().size(), 0),
      busy_to_(params_.topology.links().size(), 0),
      ps_per_cycle_(1e12 / params_.clock_hz) {
  for (Barrier& b : barriers_) b.ready.assign(size_t(params_.chips), 0);
  if (!sink_) return;
  for (int c = 0; c < params_.chips && params_.adds_per_cycle > 0; ++c) {
    reduce_adds_.push_back(sink_->declare_action(fmt::format("chip{}.vector.{}", c, to_string(VectorClass::Add)), "op"));
    reduce_reads_.push_back(sink_->declare_action(fmt::format("chip{}.sram.read.vector", c), "byte"));
    reduce_writes_.push_back(sink_->declare_action(fmt::format("chip{}.sram.write.vector", c), "byte"));
  }
  for (const DirectedLink& l : fabric_.topology().links()) {
    const std::string from = node_name(l.from), to = node_name(l.to);
    const std::string action = fmt::format("link.interconnect.{}-{}.wire", from, to);
    link_ids_.push_back(sink_->declare({0, fmt::format("interconnect.{}>{}", from, to), trace::ResourceClass::Network,
                                        "link", 1, "interconnect", "", from + ">" + to, "actions:" + action}));
    wire_ids_.push_back(sink_->declare_action(action, "byte"));
  }
}

std::string ChipSet::node_name(int node) const {
  return node < params_.chips ? fmt::format("chip{}", node) : std::string("switch");
}

std::string ChipSet::algorithm(const std::string& op) const {
  const auto it = params_.algorithms.find(op);
  return it != params_.algorithms.end() ? it->second : default_algorithm(op, params_.topology.name());
}

int64_t ChipSet::trace_time() const { return *std::min_element(marks_.begin(), marks_.end()); }

int64_t ChipSet::cycle_floor(int64_t ps) const { return int64_t(std::floor(double(ps) / ps_per_cycle_ + 1e-9)); }
int64_t ChipSet::cycle_ceil(int64_t ps) const { return int64_t(std::ceil(double(ps) / ps_per_cycle_ - 1e-9)); }

int64_t ChipSet::collective(int chip, size_t index, int64_t ready_cycle) {
  if (index >= barriers_.size()) throw std::logic_error("chip set: no such collective");
  Barrier& b = barriers_[index];
  const CollectiveKernelPlan& k = collectives_[index];
  b.ready[size_t(chip)] = ready_cycle;
  if (k.op == "send") {  // the two ends only; the sender never waits for the receiver
    if (chip != k.from && chip != k.to) throw std::logic_error("chip set: a chip at another pair's send");
    if (chip == k.from) {
      run(index, b.ready);
      b.event->notify(sc_core::SC_ZERO_TIME);
    } else if (run_of_[index] < 0) {
      sc_core::wait(*b.event);
    }
    CollectiveRun& r = runs_[size_t(run_of_[index])];
    if (chip == k.to) r.ready_cycle[size_t(chip)] = ready_cycle;
    return r.end_cycle[size_t(chip)] = std::max(r.end_cycle[size_t(chip)], ready_cycle);
  }
  if (++b.arrived == params_.chips) {
    run(index, b.ready);
    b.event->notify(sc_core::SC_ZERO_TIME);
  }
  if (b.arrived <= params_.chips) sc_core::wait(*b.event);
  return runs_.at(size_t(run_of_[index])).end_cycle[size_t(chip)];
}

void ChipSet::time_messages() {
  fabric_.run();
  // Messages of earlier collectives keep their times: later ones never leave before a chip was done
  // with the earlier (checked, since the fabric times everything again).
  for (size_t m = 0; m < timed_.size(); ++m)
    if (fabric_.timing(int(m)).arrive_ps != timed_[m].arrive_ps || fabric_.timing(int(m)).leave_ps != timed_[m].leave_ps)
      throw std::logic_error("chip set: a later collective changed an earlier one's timing");
  for (size_t m = timed_.size(); m < fabric_.messages().size(); ++m) timed_.push_back(fabric_.timing(int(m)));
}

double ChipSetParams::reduce_ps_per_byte(int bits) const {
  if (adds_per_cycle <= 0) return 0;
  const double cycles_per_byte = std::max(1.0 / (adds_per_cycle * bits / 8.0), 3.0 / port_bytes);
  return cycles_per_byte * 1e12 / clock_hz;
}

void ChipSet::run(size_t index, const std::vector<int64_t>& ready) {
  const CollectiveKernelPlan& k = collectives_[index];
  if (k.op != "send" && runs_.size() != index) throw std::logic_error("chip set: collectives out of order");
  run_of_[index] = int(runs_.size());
  CollectiveOptions o;
  o.slice_bytes = params_.slice_bytes;
  o.reduce_ps_per_byte = k.op == "all_reduce" ? params_.reduce_ps_per_byte(k.value_bits(params_.value_bits)) : 0;
  o.id = int(index);
  for (int64_t cycle : ready)
    o.ready_by_chip.push_back(checked_ps(std::round((long double)cycle * ps_per_cycle_), "interconnect: a chip's ready time"));
  std::vector<int> ring(size_t(params_.chips));
  std::iota(ring.begin(), ring.end(), 0);
  const size_t first = fabric_.messages().size();
  const std::string how = algorithm(k.op);
  const ICollectiveAlgorithm& runner = collective_algorithm(how);
  if (!runner.runs(k.op) || !runner.fit(params_.topology).problem.empty())
    throw std::logic_error("chip set: " + how + " does not run " + k.op + " on " + params_.topology.name());
  const Collective c = runner.post(fabric_, {k.op, k.bytes, ring, k.from, k.to, o});
  time_messages();

  CollectiveRun r;
  r.name = k.name;
  r.op = k.op;
  r.algorithm = how;
  r.bytes = k.bytes;
  r.element_bits = k.value_bits(params_.value_bits);
  r.ready_cycle = ready;
  r.member.assign(size_t(params_.chips), k.op != "send");
  if (k.op == "send") r.member[size_t(k.from)] = r.member[size_t(k.to)] = 1, r.from = k.from;
  r.sent_bytes = c.sent_by_chip;
  r.first_message = int64_t(first);
  r.messages = int64_t(fabric_.messages().size() - first);
  // A chip's part ends with its last message in and its last message off its first link.
  std::vector<int64_t> end_ps(size_t(params_.chips), 0);
  for (size_t m = first; m < fabric_.messages().size(); ++m) {
    const Message& msg = fabric_.messages()[m];
    const MessageTiming& t = fabric_.timing(int(m));
    end_ps[size_t(msg.dst)] = std::max(end_ps[size_t(msg.dst)], t.arrive_ps);
    // On its first link a message is on the wire from when it leaves for its whole wire time.
    end_ps[size_t(msg.src)] =
        std::max(end_ps[size_t(msg.src)], checked_add_ps(t.leave_ps, fabric_.wire_ps(msg.bytes), "interconnect: a collective's time"));
  }
  for (int chip = 0; chip < params_.chips; ++chip)
    r.end_cycle.push_back(std::max(ready[size_t(chip)], cycle_ceil(end_ps[size_t(chip)]) - 1));
  runs_.push_back(std::move(r));
  announce(first);
}

// The links' busy spans and wire bytes of the messages from `first` on, onto the trace: a link is
// busy (1) over the cycles its messages' bytes are on it (messages that share a cycle merge into one
// span), and its bytes are booked in the cycle each message's last byte leaves.
void ChipSet::announce(size_t first) {
  if (!sink_) return;
  const int64_t now = trace_time();
  // The additions before a message leaves: booked in the cycle it leaves (when they are done).
  for (size_t m = first; m < fabric_.messages().size() && !reduce_adds_.empty(); ++m) {
    const Message& msg = fabric_.messages()[m];
    if (msg.reduce_bytes == 0) continue;
    const int64_t at = cycle_floor(fabric_.timing(int(m)).leave_ps);
    const auto src = size_t(msg.src);
    const double value_bytes = collectives_[size_t(msg.collective)].value_bits(params_.value_bits) / 8.0;
    sink_->count(at, reduce_adds_[src], std::llround(double(msg.reduce_bytes) / value_bytes));
    sink_->count(at, reduce_reads_[src], 2 * msg.reduce_bytes);  // the chunk received and the chip's own
    sink_->count(at, reduce_writes_[src], msg.reduce_bytes);
  }
  for (size_t l = 0; l < fabric_.links().size(); ++l) {
    const std::vector<LinkUse>& uses = fabric_.links()[l].uses;
    int64_t span_from = -1, span_to = -1;
    auto close_span = [&] {
      if (span_from < 0) return;
      sink_->add(span_from, link_ids_[l], 1);
      sink_->add(span_to, link_ids_[l], -1);
      busy_to_[l] = span_to;
    };
    for (size_t u = announced_uses_[l]; u < uses.size(); ++u) {
      if (size_t(uses[u].message) < first) throw std::logic_error("chip set: an earlier message's use came late");
      const int64_t to = std::max(cycle_floor(uses[u].start_ps) + 1, cycle_ceil(uses[u].end_ps));
      const int64_t from = std::max(cycle_floor(uses[u].start_ps), busy_to_[l]);  // its first cycle may be busy already
      if (from < now) throw std::logic_error("chip set: a message before the trace's time");
      sink_->count(to - 1, wire_ids_[l], uses[u].wire_bytes);
      if (from >= to) continue;
      if (span_from >= 0 && from <= span_to) {
        span_to = std::max(span_to, to);
      } else {
        close_span();
        span_from = from, span_to = to;
      }
    }
    close_span();
    announced_uses_[l] = uses.size();
  }
}

}  // namespace cstsim::ic
