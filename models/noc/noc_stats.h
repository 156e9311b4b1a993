#pragma once
// Counters of the NoC, kept next to the state they measure (Network owns one).
// Units are in the names' comments; ratios are computed once, here.
#include <cstdint>
#include <vector>

namespace cstsim::noc {

// Exact histogram of packet latencies (one bin per cycle value).
class LatencyHistogram {
 public:
  void add(int64_t cycles);
  uint64_t count() const { return count_; }
  double mean() const { return count_ ? double(sum_) / double(count_) : 0.0; }
  int64_t min() const { return count_ ? min_ : 0; }
  int64_t max() const { return count_ ? max_ : 0; }
  // Nearest-rank percentile: the smallest latency L with at least q * count packets <= L.
  int64_t percentile(double q) const;
  const std::vector<uint64_t>& bins() const { return bins_; }  // bins()[L] = packets of latency L
  void clear() { *this = LatencyHistogram(); }

 private:
  std::vector<uint64_t> bins_;
  uint64_t count_ = 0;
  int64_t sum_ = 0, min_ = 0, max_ = 0;
};

struct NocStats {
  uint64_t packets_offered = 0;    // packet: inject() calls
  uint64_t packets_injected = 0;   // packet: heads that left the source interface
  uint64_t packets_delivered = 0;  // packet: tails ejected at the destination
  uint64_t flits_injected = 0;     // flit: onto injection channels
  uint64_t flits_delivered = 0;    // flit: off ejection channels
  // flit·router: router traversals (buffer write + read + crossbar). Sum over packets
  // of flits × hops; what E_flit-hop multiplies.
  uint64_t flit_hops = 0;
  uint64_t link_flits = 0;      // flit·link: router-to-router link traversals
  uint64_t vc_allocations = 0;  // head flits granted an output VC (route computations)
  // Per router-to-router link (LinkId): cycles it carried a flit (= flits, one per cycle).
  std::vector<uint64_t> link_busy;
  // Per endpoint (NodeId): flits over its injection / ejection channel (= busy cycles).
  std::vector<uint64_t> injected_flits_at, ejected_flits_at;
  LatencyHistogram latency;  // cycle: per packet, delivery cycle - offered cycle
};

}  // namespace cstsim::noc
