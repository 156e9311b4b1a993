#pragma once
// The interconnect's timing: messages between chips cross the topology's directed links, each a
// FIFO server of its own (one message at a time, in the order their first bytes reach it; ties to
// the lower message id). A message of b payload bytes in packets of at most max_payload bytes,
// each with `header` bytes, occupies a link for (b + packets x header) / bandwidth; its first byte
// reaches the next node `latency` after it started and its last byte `latency` after it ended.
// Nodes on the way (switches, chips that route) cut through: the next link may start with the
// first byte and ends no earlier than the last byte is in. A message arrives `latency` after its
// last byte left the last link. A message may wait for others (a
// collective's step waits for the data it forwards) and for a reduction after them. Times in
// integer picoseconds (a transfer's time rounded up to a whole ps), so results are exact and
// repeatable. Plain C++ with computed times, like the DMA (models/dma/dma_system.h).
#include <cstdint>
#include <string>
#include <vector>

#include "models/interconnect/topology.h"

namespace cstsim::ic {

// One direction of a link (the interconnect's presets give these per direction).
struct LinkSpec {
  double bytes_per_ns = 100;    // payload bandwidth per direction (GB/s = bytes per ns)
  int64_t latency_ps = 1000000; // from a message's last byte on the wire to its arrival (the step's alpha)
  int64_t max_payload = 0;      // bytes per packet (0: one packet a message)
  int64_t header = 0;           // bytes each packet adds on the wire
  double pj_per_bit = 0;        // energy per wire bit
};

struct Message {
  int src = 0, dst = 0;
  int64_t bytes = 0;
  int64_t ready_ps = 0;           // the earliest it may leave
  std::vector<int> after;         // messages it waits for (their arrival at their destination)
  int64_t reduce_ps = 0;          // work at src after those arrive, before it leaves (a reduction)
  int64_t reduce_bytes = 0;       // the bytes of values src adds in reduce_ps (what the trace counts)
  int collective = -1;            // which collective it belongs to (for the report)
};

struct LinkUse {
  int message = 0;
  int64_t start_ps = 0, end_ps = 0;  // on the wire
  int64_t wire_bytes = 0;
};

struct LinkStats {
  int64_t payload_bytes = 0, wire_bytes = 0, busy_ps = 0, messages = 0;
  double energy_pj = 0;
  std::vector<LinkUse> uses;  // in time order: bytes and busy time over time
};

struct MessageTiming {
  int64_t leave_ps = 0;    // first hop starts
  int64_t arrive_ps = 0;   // at its destination
};

class Fabric {
 public:
  Fabric(Topology topology, LinkSpec spec) : topology_(std::move(topology)), spec_(spec) {}
  // Adds a message (its `after` ids must be earlier messages); returns its id.
  int send(Message m);
  // Times every message added so far.
  void run();
  const Topology& topology() const { return topology_; }
  const LinkSpec& spec() const { return spec_; }
  const std::vector<LinkStats>& links() const { return links_; }
  const std::vector<Message>& messages() const { return messages_; }
  const MessageTiming& timing(int message) const { return timing_[size_t(message)]; }
  // Wire time of `bytes` on one link (ps, rounded up).
  int64_t wire_ps(int64_t bytes) const;
  int64_t wire_bytes(int64_t bytes) const;
  // The last arrival (ps).
  int64_t end_ps() const;

 private:
  Topology topology_;
  LinkSpec spec_;
  std::vector<Message> messages_;
  std::vector<MessageTiming> timing_;
  std::vector<LinkStats> links_;
};

}  // namespace cstsim::ic
