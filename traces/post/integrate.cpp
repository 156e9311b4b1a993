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
                                      [](const ScopeTotals& a, const ScopeTotals& b) { return a.start < b.start; });
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
      values_[rec.resource] = rec.value;
      last_cycle = c;
      last_id = rec.resource;
    }
    advance_to(int64_t(r_.header().end_cycle));
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

  // The values in `values_` held over [now_, t): add them to every scope they overlap.
  // Layers in start order (the usual case) are looked at from the first that is still
  // open, up to the first that starts after t.
  void advance_to(int64_t t) {
    if (t <= now_) return;
    accumulate(0, now_, t);
    if (layers_in_order_)
      while (first_open_ < out_.layers.size() && out_.layers[first_open_].end <= now_) ++first_open_;
    for (size_t k = layers_in_order_ ? first_open_ : 0; k < out_.layers.size(); ++k) {
      const ScopeTotals& l = out_.layers[k];
      if (layers_in_order_ && l.start >= t) break;
      const int64_t a = std::max(now_, l.start), b = std::min(t, l.end);
      if (a < b) accumulate(k + 1, a, b);
    }
    now_ = t;
  }

  // scope 0: the run; k > 0: layer k - 1.
  void accumulate(size_t scope, int64_t a, int64_t b) {
    ScopeTotals& s = scope == 0 ? out_.total : out_.layers[scope - 1];
    const int64_t len = b - a;
    int64_t devices = 0, pes = 0, links = 0, memory = 0;
    std::fill(level_sum_.begin(), level_sum_.end(), 0);
    for (size_t i = 0; i < values_.size(); ++i) {
      const int64_t v = values_[i];
      ResourceTotals& t = s.resources[i];
      t.peak = std::max(t.peak, v);
      if (v != 0) {
        t.integral += static_cast<long double>(v) * len;
        t.busy_cycles += len;
      }
      switch (kind_[i]) {
        case Kind::Device: devices += v; break;
        case Kind::Pe: pes += v; break;
        case Kind::Memory:
          memory += v;
          level_sum_[size_t(level_of_[i])] += v;
          break;
        case Kind::Link: links += v; break;
        case Kind::Other: break;
      }
    }
    s.peak_devices = std::max(s.peak_devices, devices);
    s.peak_pes = std::max(s.peak_pes, pes);
    s.peak_links = std::max(s.peak_links, links);
    s.peak_memory = std::max(s.peak_memory, memory);
    std::vector<int64_t>& peaks = level_peak_[scope];
    for (size_t l = 0; l < levels_.size(); ++l) peaks[l] = std::max(peaks[l], level_sum_[l]);
    touched_[scope] = true;
    if (devices == 1) s.serial_cycles += len;
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
  size_t first_open_ = 0;  // layers before it ended by now_
  int64_t now_ = 0;
  Integrals out_;
};

}  // namespace

Integrals integrate(trace::TraceReader& reader) { return Integrator(reader).run(); }

}  // namespace cstsim::post
