#include "traces/post/integrate.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace cstsim::post {
namespace {

using trace::ResourceClass;

class Integrator {
 public:
  explicit Integrator(trace::TraceReader& r) : r_(r), values_(r.resources().size(), 0) {
    for (const trace::Resource& res : r.resources()) {
      kind_.push_back(res.cls == ResourceClass::Memory    ? Kind::Memory
                      : res.cls == ResourceClass::Network ? Kind::Link
                      : res.cls != ResourceClass::Compute ? Kind::Other
                      : res.unit == "device"              ? Kind::Device
                      : res.unit == "PE"                  ? Kind::Pe
                                                          : Kind::Other);
      if (res.cls != ResourceClass::Memory) {
        level_of_.push_back(-1);
        continue;
      }
      auto it = std::find(levels_.begin(), levels_.end(), res.level);
      level_of_.push_back(int(it - levels_.begin()));
      if (it == levels_.end()) levels_.push_back(res.level);
    }
    level_sum_.resize(levels_.size());
    const int64_t end = int64_t(r.header().end_cycle);
    out_.total = make_scope(0, end);
    for (const trace::LayerRow& l : r.layers()) out_.layers.push_back(make_scope(l.start_cycle, l.end_cycle + 1));
    level_peak_.assign(out_.layers.size() + 1, std::vector<int64_t>(levels_.size(), 0));
    touched_.assign(out_.layers.size() + 1, false);
    layers_in_order_ = std::is_sorted(out_.layers.begin(), out_.layers.end(),
                                      [](const ScopeTotals& a, const ScopeTotals& b) { return a.start < b.start; }) &&
                       std::is_sorted(out_.layers.begin(), out_.layers.end(),
                                      [](const ScopeTotals& a, const ScopeTotals& b) { return a.end < b.end; });
    since_.assign(values_.size(), 0);
  }

  Integrals run() {
    trace::Record rec;
    int64_t last_cycle = -1;
    uint32_t last_id = 0;
    while (r_.next(rec)) {
      const int64_t c = int64_t(rec.cycle);
      if (rec.resource >= values_.size()) throw std::runtime_error(fmt::format("record for unknown resource {}", rec.resource));
      if (c < last_cycle || (c == last_cycle && rec.resource <= last_id))
        throw std::runtime_error(fmt::format("rt.bin: records out of order at cycle {}", c));
      if (c >= int64_t(r_.header().end_cycle)) throw std::runtime_error("rt.bin: record past end_cycle");
      advance_to(c);
      set(rec.resource, rec.value, c);
      last_cycle = c;
      last_id = rec.resource;
    }
    advance_to(int64_t(r_.header().end_cycle));
    for (size_t i = 0; i < values_.size(); ++i) close_segment(i, int64_t(r_.header().end_cycle));
    for (size_t k = 0; k < touched_.size(); ++k) {
      if (!touched_[k]) continue;
      ScopeTotals& s = k == 0 ? out_.total : out_.layers[k - 1];
      for (size_t l = 0; l < levels_.size(); ++l) s.peak_memory_by_level[levels_[l]] = level_peak_[k][l];
    }
    return std::move(out_);
  }

 private:
  ScopeTotals make_scope(int64_t start, int64_t end) {
    ScopeTotals s;
    s.start = start;
    s.end = end;
    s.resources.resize(values_.size());
    return s;
  }

  // Layers overlapping [a, b), in order: with layers in start and end order, from the
  // first that ends after a to the last that starts before b; else all of them.
  template <class F>
  void for_layers(int64_t a, int64_t b, F&& f) {
    size_t k = 0;
    if (layers_in_order_)
      k = size_t(std::partition_point(out_.layers.begin(), out_.layers.end(),
                                      [a](const ScopeTotals& l) { return l.end <= a; }) -
                  out_.layers.begin());
    for (; k < out_.layers.size(); ++k) {
      const ScopeTotals& l = out_.layers[k];
      if (layers_in_order_ && l.start >= b) break;
      const int64_t from = std::max(a, l.start), to = std::min(b, l.end);
      if (from < to) f(k + 1, to - from);
    }
  }

  // Resource i changes to v at cycle c. Its integral, busy cycles and peak are booked per
  // held value (close_segment); the class sums the peaks are taken of change with it.
  void set(size_t i, int64_t v, int64_t c) {
    close_segment(i, c);
    const int64_t d = v - values_[i];
    switch (kind_[i]) {
      case Kind::Device: devices_ += d; break;
      case Kind::Pe: pes_ += d; break;
      case Kind::Link: links_ += d; break;
      case Kind::Memory:
        memory_ += d;
        level_sum_[size_t(level_of_[i])] += d;
        break;
      case Kind::Other: break;
    }
    values_[i] = v;
    since_[i] = c;
  }

  // The value resource i held over [since, c), in every scope it overlaps. The integral is
  // an integer in long double (64-bit mantissa): exact while it stays below 2^64 unit-cycles
  // (7 GB held for 2.6e9 cycles), so one product per held value equals the sum over the
  // intervals in it; beyond that both round, in different last bits.
  void close_segment(size_t i, int64_t c) {
    const int64_t from = since_[i], v = values_[i];
    if (c <= from) return;
    auto book = [&](ResourceTotals& t, int64_t len) {
      t.peak = std::max(t.peak, v);
      if (v != 0) {
        t.integral += static_cast<long double>(v) * len;
        t.busy_cycles += len;
      }
    };
    book(out_.total.resources[i], c - from);
    for_layers(from, c, [&](size_t scope, int64_t len) { book(out_.layers[scope - 1].resources[i], len); });
    since_[i] = c;
  }

  // The class sums held over [now_, t): their peaks in every scope they overlap.
  void advance_to(int64_t t) {
    if (t <= now_) return;
    accumulate(0, t - now_);
    for_layers(now_, t, [&](size_t scope, int64_t len) { accumulate(scope, len); });
    now_ = t;
  }

  // scope 0: the run; k > 0: layer k - 1.
  void accumulate(size_t scope, int64_t len) {
    ScopeTotals& s = scope == 0 ? out_.total : out_.layers[scope - 1];
    s.peak_devices = std::max(s.peak_devices, devices_);
    s.peak_pes = std::max(s.peak_pes, pes_);
    s.peak_links = std::max(s.peak_links, links_);
    s.peak_memory = std::max(s.peak_memory, memory_);
    std::vector<int64_t>& peaks = level_peak_[scope];
    for (size_t l = 0; l < levels_.size(); ++l) peaks[l] = std::max(peaks[l], level_sum_[l]);
    touched_[scope] = true;
    if (devices_ == 1) s.serial_cycles += len;
  }

  trace::TraceReader& r_;
  std::vector<int64_t> values_;
  std::vector<int> level_of_;          // memory level index per resource, -1 if not memory
  // What a resource adds to: the class sums the peaks are taken of.
  enum class Kind : uint8_t { Device, Pe, Link, Memory, Other };
  std::vector<Kind> kind_;
  std::vector<std::string> levels_;
  std::vector<int64_t> level_sum_;
  // Per scope: peak bytes per memory level (written into peak_memory_by_level at the end),
  // and whether any interval fell in it (a scope no interval touched keeps an empty map).
  std::vector<std::vector<int64_t>> level_peak_;
  std::vector<bool> touched_;
  bool layers_in_order_ = true;
  std::vector<int64_t> since_;  // per resource: the cycle its value started
  int64_t devices_ = 0, pes_ = 0, links_ = 0, memory_ = 0;  // the class sums, now
  int64_t now_ = 0;
  Integrals out_;
};

}  // namespace

Integrals integrate(trace::TraceReader& reader) { return Integrator(reader).run(); }

}  // namespace cstsim::post
