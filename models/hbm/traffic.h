#pragma once
// A closed-loop traffic generator for one HBM stack (what `cstsim hbm-bench`, the Google
// benchmark and the property tests run): `outstanding` requests start at cycle 0; each
// completion at cycle d sends the next request, arriving at d + 1 (the HbmModule's
// synchroniser gives the same +1), until `total_bytes` have been requested.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/hbm/hbm_device.h"

namespace cstsim::hbm {

enum class Pattern { Seq, Random, Strided, Trace };
const char* pattern_name(Pattern p);

// One request of a given stream (Pattern::Trace): its byte address and whether it writes.
struct TraceRequest {
  uint64_t addr = 0;
  bool write = false;
};

struct TrafficOptions {
  Pattern pattern = Pattern::Seq;
  // Trace: the requests in order, each request_bytes long (total_bytes and write_fraction then
  // come from it). The caller reads and checks the file; the stream checks alignment and range.
  std::vector<TraceRequest> trace;
  uint64_t total_bytes = 4 << 20;
  uint64_t request_bytes = 32;
  uint64_t stride = 0;          // Strided: bytes between requests; 0 = next row of the same bank
  double write_fraction = 0.0;  // share of requests that are writes (random, seeded)
  int outstanding = 0;          // requests in flight; 0 = queue_depth x pseudo-channels
  uint64_t seed = 1;
};

// The address stream of a pattern (request i -> byte address), shared by both drivers.
class AddressStream {
 public:
  AddressStream(const HbmSpec& spec, const AddressMap& map, const TrafficOptions& o);
  HbmRequest next(Cycle arrival);  // the next request (id = index)
  uint64_t count() const { return count_; }
  uint64_t issued() const { return i_; }
  uint64_t stride() const { return stride_; }

 private:
  uint64_t rand64();
  TrafficOptions o_;
  uint64_t capacity_, stride_, count_;
  uint64_t i_ = 0;
  uint64_t rng_;
};

struct TrafficResult {
  uint64_t requests = 0;
  uint64_t bytes = 0;
  Cycle start_cycle = 0;         // arrival of the first requests
  Cycle end_cycle = 0;           // last completion's done cycle: the run covers [start, end)
  std::vector<Cycle> latencies;  // per request, done - arrival, sorted
  ChannelStats stats;            // summed over channels
  uint64_t stride = 0;           // the stride used (Strided)
  int outstanding = 0;

  Cycle elapsed() const { return end_cycle - start_cycle; }
  double bytes_per_cycle() const { return elapsed() > 0 ? double(bytes) / double(elapsed()) : 0.0; }
  Cycle percentile(double p) const;  // nearest rank, p in (0, 100]
  double mean_latency() const;
};

// Runs the pattern on `device` (which must be fresh) without a kernel; the first requests
// arrive at `start` (the SystemC driver's first requests arrive at 1).
TrafficResult run_traffic(HbmDevice& device, const TrafficOptions& options, Cycle start = 0);

// The bookkeeping both drivers share: one completion in, maybe one request out.
class TrafficRecorder {
 public:
  TrafficRecorder(const HbmDevice& device, const TrafficOptions& options, Cycle start);
  std::vector<HbmRequest> initial();                                // the first `outstanding` requests
  std::optional<HbmRequest> on_completion(const HbmCompletion& c);  // the next request, arriving c.done + 1
  TrafficResult finish(const HbmDevice& device);                    // sorts latencies, copies the counters
  Cycle end_cycle() const { return res_.end_cycle; }

 private:
  AddressStream stream_;
  TrafficResult res_;
};

// Derived figures for a result on `spec`.
struct TrafficFigures {
  double peak_bytes_per_cycle = 0;  // all pseudo-channels
  double bandwidth_gbps = 0;        // achieved, GB/s (1e9 B/s)
  double peak_gbps = 0;
  double efficiency = 0;  // achieved / peak
  // Share of bank time inside a refresh: bank-cycles within tRFC of a REF (all banks of the PC)
  // or tRFCpb of a REFpb (its bank), over end_cycle x banks. All-bank refresh: = PC time inside
  // tRFC / PC time. It is the refresh load of the banks, not the bandwidth lost to refresh.
  double refresh_share = 0;
};
TrafficFigures figures(const HbmSpec& spec, const TrafficResult& r);
// What refresh_share tends to over a long run: tRFC / tREFI (all_bank), tRFCpb / tREFI
// (per_bank: each bank is busy tRFCpb once per tREFI), 0 (none).
double expected_refresh_share(const HbmSpec& spec);

}  // namespace cstsim::hbm
