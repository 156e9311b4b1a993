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
  void advance_to(int64_t t) {
    if (t <= now_) return;
    accumulate(out_.total, now_, t);
    for (ScopeTotals& l : out_.layers) {
      const int64_t a = std::max(now_, l.start), b = std::min(t, l.end);
      if (a < b) accumulate(l, a, b);
    }
    now_ = t;
  }

  void accumulate(ScopeTotals& s, int64_t a, int64_t b) {
    const int64_t len = b - a;
    int64_t devices = 0, pes = 0, links = 0, memory = 0;
    std::fill(level_sum_.begin(), level_sum_.end(), 0);
    const auto& res = r_.resources();
    for (size_t i = 0; i < values_.size(); ++i) {
      const int64_t v = values_[i];
      ResourceTotals& t = s.resources[i];
      t.peak = std::max(t.peak, v);
      if (v != 0) {
        t.integral += static_cast<long double>(v) * len;
        t.busy_cycles += len;
      }
      switch (res[i].cls) {
        case ResourceClass::Compute:
          if (res[i].unit == "device") devices += v;
          else if (res[i].unit == "PE") pes += v;
          break;
        case ResourceClass::Memory:
          memory += v;
          level_sum_[size_t(level_of_[i])] += v;
          break;
        case ResourceClass::Network: links += v; break;
        case ResourceClass::Storage: break;
      }
    }
    s.peak_devices = std::max(s.peak_devices, devices);
    s.peak_pes = std::max(s.peak_pes, pes);
    s.peak_links = std::max(s.peak_links, links);
    s.peak_memory = std::max(s.peak_memory, memory);
    for (size_t l = 0; l < levels_.size(); ++l) {
      int64_t& peak = s.peak_memory_by_level[levels_[l]];
      peak = std::max(peak, level_sum_[l]);
    }
    if (devices == 1) s.serial_cycles += len;
  }

  trace::TraceReader& r_;
  std::vector<int64_t> values_;
  std::vector<int> level_of_;          // memory level index per resource, -1 if not memory
  std::vector<std::string> levels_;
  std::vector<int64_t> level_sum_;
  int64_t now_ = 0;
  Integrals out_;
};

}  // namespace

Integrals integrate(trace::TraceReader& reader) { return Integrator(reader).run(); }

}  // namespace cstsim::post
