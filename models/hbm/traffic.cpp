#include "models/hbm/traffic.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "models/hbm/refresh/i_refresh.h"

namespace cstsim::hbm {

const char* pattern_name(Pattern p) {
  switch (p) {
    case Pattern::Seq: return "seq";
    case Pattern::Random: return "random";
    case Pattern::Strided: return "strided";
    case Pattern::Trace: return "trace";
  }
  return "?";
}

AddressStream::AddressStream(const HbmSpec& spec, const AddressMap& map, const TrafficOptions& o)
    : o_(o), capacity_(map.capacity()), rng_(o.seed * 0x9E3779B97F4A7C15ull + 1) {
  if (o.request_bytes == 0) throw std::invalid_argument("request size must be positive");
  if (o.request_bytes > capacity_) throw std::invalid_argument("request size is larger than the stack");
  count_ = (o.total_bytes + o.request_bytes - 1) / o.request_bytes;
  if (o.pattern == Pattern::Trace) {
    if (o.trace.empty()) throw std::invalid_argument("the trace has no requests");
    for (size_t k = 0; k < o.trace.size(); ++k) {
      const uint64_t a = o.trace[k].addr;
      if (a % o.request_bytes != 0 || a > capacity_ - o.request_bytes)
        throw std::invalid_argument("trace request " + std::to_string(k + 1) + ": address " + std::to_string(a) +
                                    " is not a request-aligned address of the stack (" +
                                    std::to_string(o.request_bytes) + " B requests, " + std::to_string(capacity_) +
                                    " B)");
    }
    count_ = o.trace.size();
  }
  stride_ = o.stride;
  if (o.pattern == Pattern::Strided && stride_ == 0) stride_ = uint64_t(1) << map.lowest_bit("ro");
  (void)spec;
}

uint64_t AddressStream::rand64() {  // splitmix64
  uint64_t z = (rng_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

HbmRequest AddressStream::next(Cycle arrival) {
  HbmRequest r;
  r.id = i_;
  r.bytes = o_.request_bytes;
  r.cycle = arrival;
  const uint64_t slots = capacity_ / o_.request_bytes;  // request-aligned positions
  switch (o_.pattern) {
    case Pattern::Seq: r.addr = (i_ % slots) * o_.request_bytes; break;
    case Pattern::Random: r.addr = (rand64() % slots) * o_.request_bytes; break;
    case Pattern::Strided: {
      const uint64_t a = (i_ * stride_) % capacity_;
      r.addr = std::min(a, capacity_ - o_.request_bytes);
      break;
    }
    case Pattern::Trace:
      r.addr = o_.trace[size_t(i_)].addr;
      r.is_write = o_.trace[size_t(i_)].write;
      ++i_;
      return r;
  }
  r.is_write = o_.write_fraction > 0 && double(rand64() >> 11) * 0x1.0p-53 < o_.write_fraction;
  ++i_;
  return r;
}

Cycle TrafficResult::percentile(double p) const {
  if (latencies.empty()) return 0;
  size_t rank = size_t(std::ceil(p / 100.0 * double(latencies.size())));
  rank = std::clamp<size_t>(rank, 1, latencies.size());
  return latencies[rank - 1];
}

double TrafficResult::mean_latency() const {
  if (latencies.empty()) return 0;
  return double(std::accumulate(latencies.begin(), latencies.end(), int64_t(0))) / double(latencies.size());
}

TrafficRecorder::TrafficRecorder(const HbmDevice& dev, const TrafficOptions& o, Cycle start)
    : stream_(dev.spec(), dev.address_map(), o) {
  res_.start_cycle = start;
  res_.end_cycle = start;
  res_.outstanding = o.outstanding > 0 ? o.outstanding : dev.spec().queue_depth * dev.spec().org.pcs();
  res_.stride = stream_.stride();
  res_.latencies.reserve(size_t(stream_.count()));
}

std::vector<HbmRequest> TrafficRecorder::initial() {
  std::vector<HbmRequest> out;
  while (stream_.issued() < stream_.count() && stream_.issued() < uint64_t(res_.outstanding))
    out.push_back(stream_.next(res_.start_cycle));
  return out;
}

std::optional<HbmRequest> TrafficRecorder::on_completion(const HbmCompletion& c) {
  res_.latencies.push_back(c.latency());
  res_.bytes += c.bytes;
  ++res_.requests;
  res_.end_cycle = std::max(res_.end_cycle, c.done);
  if (stream_.issued() >= stream_.count()) return std::nullopt;
  return stream_.next(c.done + 1);
}

TrafficResult TrafficRecorder::finish(const HbmDevice& dev) {
  std::sort(res_.latencies.begin(), res_.latencies.end());
  res_.stats = dev.total_stats();
  return std::move(res_);
}

TrafficResult run_traffic(HbmDevice& dev, const TrafficOptions& o, Cycle start) {
  TrafficRecorder rec(dev, o, start);
  for (const HbmRequest& r : rec.initial()) dev.submit(r);
  while (!dev.idle()) {
    const Cycle e = dev.next_event();
    if (e >= kNever) throw std::logic_error("HBM traffic: requests outstanding but no next event");
    dev.run_until(e);
    for (const HbmCompletion& c : dev.take_completions())
      if (auto next = rec.on_completion(c)) dev.submit(*next);
  }
  dev.run_until(rec.end_cycle());  // refresh up to the end, for the counters
  return rec.finish(dev);
}

TrafficFigures figures(const HbmSpec& spec, const TrafficResult& r) {
  TrafficFigures f;
  f.peak_bytes_per_cycle = spec.peak_bytes_per_cycle();
  f.bandwidth_gbps = r.bytes_per_cycle() / spec.tck_ns;
  f.peak_gbps = f.peak_bytes_per_cycle / spec.tck_ns;
  f.efficiency = f.peak_bytes_per_cycle > 0 ? r.bytes_per_cycle() / f.peak_bytes_per_cycle : 0;
  if (r.end_cycle > 0)
    f.refresh_share = double(r.stats.refresh_bank_busy) /
                      (double(r.end_cycle) * double(spec.org.pcs()) * double(spec.org.banks_per_pc()));
  return f;
}

double expected_refresh_share(const HbmSpec& spec) {
  return refresh_policy(spec.refresh).expected_share(spec);
}

}  // namespace cstsim::hbm
