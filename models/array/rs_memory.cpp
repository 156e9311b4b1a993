#include "models/array/rs_memory.h"

#include <algorithm>
#include <cmath>

namespace cstsim {

const char* to_string(RsTransfer::Kind k) {
  switch (k) {
    case RsTransfer::Filters: return "filters";
    case RsTransfer::Ifmap: return "ifmap";
    case RsTransfer::Ofmap: return "ofmap";
  }
  return "?";
}

RsChannel::RsChannel(const RsLayerPlan& plan, double bytes_per_cycle, int64_t latency, int64_t layer_start)
    : plan_(plan), bytes_per_cycle_(bytes_per_cycle), latency_(latency), layer_start_(layer_start),
      free_at_(layer_start) {}

int64_t RsChannel::move(RsTransfer::Kind kind, size_t pass, int64_t bits, int64_t wanted) {
  if (bits == 0) return wanted - 1;
  RsTransfer t;
  t.kind = kind;
  t.pass = int64_t(pass);
  t.bytes = (bits + 7) / 8;
  t.issue = wanted;
  t.start = std::max(wanted, free_at_);
  t.end = t.start + int64_t(std::ceil(double(t.bytes) / bytes_per_cycle_)) - 1;
  free_at_ = t.end + 1;
  transfers_.push_back(t);
  return t.end;
}

int64_t RsChannel::ready(size_t pass, const RsPassTiming* previous) {
  const RsPass& p = plan_.passes[pass];
  const RsPassTraffic traffic = rs_pass_traffic(plan_, p);
  // In the order they are wanted: this pass's filters (from the previous pass's start), the
  // previous pass's ofmaps and this pass's ifmap block (both from the previous pass's last MAC).
  const int64_t filters = move(RsTransfer::Filters, pass, traffic.filter_bits, previous ? previous->start : layer_start_);
  const int64_t after = previous ? previous->compute_end + 1 : layer_start_;
  if (previous) move(RsTransfer::Ofmap, pass - 1, rs_pass_traffic(plan_, plan_.passes[pass - 1]).ofmap_bits, after);
  const int64_t ifmap = move(RsTransfer::Ifmap, pass, traffic.ifmap_bits, after);
  return std::max(filters, ifmap) + latency_ + 1;
}

int64_t RsChannel::drain(const RsPassTiming& last) {
  const size_t pass = plan_.passes.size() - 1;
  return move(RsTransfer::Ofmap, pass, rs_pass_traffic(plan_, plan_.passes[pass]).ofmap_bits, last.compute_end + 1);
}

}  // namespace cstsim
