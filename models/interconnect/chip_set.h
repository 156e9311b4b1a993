#pragma once
// The chips of a multi-chip run (arch chips > 1) and the interconnect between them, as the chips'
// array processes see it: each chip's process reaches the plan's collectives in order
// (plan/collective_kernel.h) and waits here until every chip has reached the same one (a SystemC
// barrier, like ClusterSet's between clusters). The last to arrive runs the collective's messages
// on the fabric (fabric.h, collectives.h), each chip's messages leaving no earlier than that chip
// arrived; every chip then goes on when its own part is done: its last message in and its last
// message out of its first link. A chip that adds a received chunk to its own before forwarding it
// does so on its vector unit (at the unit's rate; its additions, two scratchpad reads and a write a
// value, go on the trace as the unit's). The links' busy time and bytes go on the run's trace as they
// happen (class N resources `interconnect.<from>><to>`, actions `link.interconnect.<from>-<to>.wire`).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "models/interconnect/collectives.h"
#include "models/interconnect/fabric.h"
#include "plan/collective_kernel.h"
#include "traces/sink.h"

namespace cstsim::ic {

struct ChipSetParams {
  int chips = 2;
  Topology topology = Topology::ring(2, false);
  LinkSpec link;
  // op -> the algorithm that runs it (algorithms/), where not the topology's choice (default_algorithm).
  std::map<std::string, std::string> algorithms;
  int64_t slice_bytes = 0;
  // Each chip's vector unit adds what it receives: adds_per_cycle values, reading two operands
  // and writing the sum through ports of port_bytes per cycle (0 adds: no unit, reductions free
  // and off the trace). value_bits: the width of a value where a collective names none.
  double adds_per_cycle = 0;
  double port_bytes = 0;
  int value_bits = 0;
  double clock_hz = 1e9;
  // Picoseconds a byte of `bits`-wide values takes to add: the adds' rate or the ports' (3 bytes
  // move per byte added), whichever binds.
  double reduce_ps_per_byte(int bits) const;
};

// What one collective did.
struct CollectiveRun {
  std::string name, op, algorithm;
  int64_t bytes = 0;
  int element_bits = 0;                         // the width of a value it moves (and adds)
  std::vector<int64_t> ready_cycle, end_cycle;  // per chip
  std::vector<char> member;                     // per chip: takes part (a send: its two ends)
  int from = -1;                                // a send's sender
  std::vector<int64_t> sent_bytes;              // per chip: payload
  int64_t messages = 0;
  int64_t first_message = 0;  // its messages are fabric ids [first_message, first_message + messages)
};

class ChipSet {
 public:
  // Declares the links' trace resources on `sink` (optional), so construct it before any record.
  ChipSet(ChipSetParams params, std::vector<CollectiveKernelPlan> collectives, trace::TraceSink* sink);

  int chips() const { return params_.chips; }
  // Chip `chip` is ready for collective `index` at `ready_cycle`: waits until every chip is, and
  // returns the last cycle of its own part. A send: its sender posts the message at once and goes
  // on once it is off its first link; its receiver waits until it has arrived.
  int64_t collective(int chip, size_t index, int64_t ready_cycle);
  // The trace's clock across chips: chip `chip` will announce nothing before `cycle`.
  void trace_mark(int chip, int64_t cycle) { marks_[size_t(chip)] = cycle; }
  int64_t trace_time() const;

  const Fabric& fabric() const { return fabric_; }
  const std::vector<CollectiveRun>& runs() const { return runs_; }
  // Node names: "chip<k>", or "switch".
  std::string node_name(int node) const;
  // The registered algorithm that runs `op` here.
  std::string algorithm(const std::string& op) const;

 private:
  struct Barrier {
    int arrived = 0;
    std::vector<int64_t> ready;
    std::unique_ptr<sc_core::sc_event> event = std::make_unique<sc_core::sc_event>();
  };
  void run(size_t index, const std::vector<int64_t>& ready);
  void time_messages();  // the fabric after new messages; earlier ones must keep their times
  void announce(size_t first_message);
  int64_t cycle_floor(int64_t ps) const;
  int64_t cycle_ceil(int64_t ps) const;

  ChipSetParams params_;
  std::vector<CollectiveKernelPlan> collectives_;
  trace::TraceSink* sink_;
  Fabric fabric_;
  std::vector<Barrier> barriers_;
  std::vector<CollectiveRun> runs_;  // in the order they ran (CollectiveRun::name says which)
  std::vector<int> run_of_;         // per collective: its index in runs_ (-1: not yet)
  std::vector<int64_t> marks_;
  std::vector<trace::ResourceId> link_ids_;
  std::vector<trace::ActionId> wire_ids_;
  // Per chip: its vector unit's additions and scratchpad reads and writes in an all-reduce (the
  // same actions as the unit's own kernels: `chip<k>.vector.add`, `.sram.read.vector`, ...).
  std::vector<trace::ActionId> reduce_adds_, reduce_reads_, reduce_writes_;
  std::vector<size_t> announced_uses_;  // per link: its uses already on the trace
  std::vector<int64_t> busy_to_;        // per link: where its last busy span on the trace ends
  std::vector<MessageTiming> timed_;    // the timing every earlier message was given
  double ps_per_cycle_;
};

}  // namespace cstsim::ic
