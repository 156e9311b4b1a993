#pragma once
// TraceSink: every module reports occupancy changes and action counts here.
//
//  - declare() a resource once, then set(cycle, id, value) or add(cycle, id, delta)
//    whenever its occupancy changes. Changes may be announced ahead of simulated
//    time (a clockless model knows its future), never behind: advance(now) makes
//    every change before `now` final and writes it.
//  - declare_action() a counter, then count(cycle, id, n) for discrete actions, or
//    bind() it to a resource so it accrues value x per_unit every cycle (MACs from
//    active PEs, bytes from busy links) - exact per window with no per-cycle calls.
//
// Files are written while the simulation runs, through a fixed-size record buffer,
// into the directory given (the run's staging directory). See traces/FORMAT.md.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/out_file.h"
#include "traces/format.h"
#include "traces/manifest.h"

namespace cstsim::trace {

using ResourceId = uint32_t;
using ActionId = uint32_t;

class TraceSink {
 public:
  struct Options {
    std::filesystem::path dir;      // trace files go here (created)
    double clock_hz = 1e9;
    int64_t window = 1024;          // action-counter window, cycles
    size_t buffer_records = 1 << 13;
    // Called once when a trace file cannot be written (disk full...). The sink stops
    // writing and finish() throws the error; a run uses this to stop the simulation.
    std::function<void()> on_write_error;
    // The trace's files may not grow past this many bytes (0: no limit): past it the sink stops
    // writing, calls on_write_error, and finish() throws an InputError naming --max-trace-bytes.
    uint64_t max_bytes = 0;
  };
  explicit TraceSink(Options options);
  ~TraceSink();  // an unfinished trace's files are removed
  TraceSink(const TraceSink&) = delete;
  TraceSink& operator=(const TraceSink&) = delete;

  // Names declared from now on start with `prefix` (e.g. "chip3."), and so do their owners, the
  // ends of their edges and the action prefixes they carry: several copies of one model (the chips
  // of a multi-chip run) declare the same names into one trace. "" ends it.
  void set_scope(std::string prefix) { scope_ = std::move(prefix); }
  ResourceId declare(Resource resource);
  ActionId declare_action(const std::string& name, const std::string& unit);
  // A counter of bytes kept in bits: its bindings and counts are in bits (words below a byte:
  // int4 weights on a link), and each window writes the whole bytes reached so far, carrying the
  // rest to the next window it has counts in (so the run's total is exact to the byte).
  ActionId declare_action_in_bits(const std::string& name);
  void bind(ActionId action, ResourceId resource, int64_t per_unit_cycle);
  // Within layer `layer` the binding of `action` to `resource` counts `per_unit_cycle` instead
  // (a layer whose tensors are stored narrower or wider than the run's; sim/mapper/mapper.cpp).
  void bind_in_layer(ActionId action, ResourceId resource, int layer, int64_t per_unit_cycle);

  void set(int64_t cycle, ResourceId id, int64_t value) { push(cycle, id, value, false); }
  void add(int64_t cycle, ResourceId id, int64_t delta) { push(cycle, id, delta, true); }
  void count(int64_t cycle, ActionId id, int64_t n);
  // `per_cycle` of an action in every cycle of [from, to) (a state held over time, e.g. a
  // DRAM channel in active standby), split at windows and layers like a bound counter.
  void count_span(int64_t from, int64_t to, ActionId id, int64_t per_cycle) { accrue(id, from, to, per_cycle); }
  // Several actions over one span, each at its own rate (0: none), split at windows and layers
  // once: what count_span does for each, at the cost of one.
  struct Rate {
    ActionId id;
    int64_t per_cycle;
  };
  void count_spans(int64_t from, int64_t to, std::initializer_list<Rate> rates);
  // `per_cycle` of an action in every cycle of the run, from 0 to its end (a device that is
  // powered throughout, e.g. the DRAM channels' standby), accrued window by window.
  void count_every_cycle(ActionId id, int64_t per_cycle) { always_.push_back({id, per_cycle}); }

  // Layers partition time; a layer runs from its start to the next layer's start.
  void begin_layer(int index, const std::string& name, int64_t start_cycle);
  // A named span of cycles [start, end] on a track ("array.folds"), for timeline viewers:
  // slices.csv, a row each, in the order booked (traces/FORMAT.md). Spans on one track do not
  // overlap. The track takes the sink's scope.
  void slice(const std::string& track, const std::string& name, int64_t start, int64_t end);
  // The whole trace is one layer, `name`, from cycle 0; begin_layer does nothing after it (chips
  // running different layers at once: pipeline stages).
  void one_layer(const std::string& name) {
    begin_layer(0, name, 0);
    one_layer_ = true;
  }

  void advance(int64_t now);
  // Flushes everything, closes the files; the trace covers [0, end_cycle).
  // Throws io::OutputError if any write failed.
  void finish(int64_t end_cycle);
  void rethrow_write_error() const;

  const std::vector<Resource>& resources() const { return resources_; }
  // The actions declared so far, by name (before the run: every action it can count).
  std::vector<std::string> action_names() const {
    std::vector<std::string> names;
    for (const auto& [name, unit] : actions_) names.push_back(name);
    return names;
  }
  uint64_t records_written() const { return records_; }
  // What finish() wrote (trace/manifest.json) and that file's own CRC-32, for summary.json.
  const Manifest& manifest() const { return manifest_; }
  uint32_t manifest_crc32() const { return manifest_crc32_; }
  // Largest number of announced-but-not-final changes held at once (memory bound check).
  size_t peak_pending() const { return peak_pending_; }

 private:
  struct Change {  // announcement order is the order in the pending vector
    int64_t cycle;
    int64_t value;
    ResourceId id;
    bool delta;
  };
  struct Binding {
    ActionId action;
    int64_t per_unit;
    std::vector<std::pair<int, int64_t>> in_layer = {};  // (layer, per_unit) overrides, by layer
    int64_t per_unit_in(int layer) const {
      auto it = std::lower_bound(in_layer.begin(), in_layer.end(), std::make_pair(layer, INT64_MIN));
      return it != in_layer.end() && it->first == layer ? it->second : per_unit;
    }
  };
  struct LayerSpan {
    int index;
    std::string name;
    int64_t start;
  };

  void push(int64_t cycle, ResourceId id, int64_t value, bool delta);
  void apply_cycle(int64_t cycle, std::vector<Change>& changes);
  void write_record(int64_t cycle, ResourceId id, int64_t value);
  void flush_buffer();
  void check_size();  // against Options::max_bytes
  // Adds `amount` per cycle over [from, to) to an action, split at windows and layers.
  void accrue(ActionId action, int64_t from, int64_t to, int64_t amount);
  // A bound counter: `value` units of its resource over [from, to), at the binding's rate in
  // each layer.
  void accrue(const Binding& b, int64_t from, int64_t to, int64_t value);
  int layer_at(int64_t cycle) const;
  // Accrues every bound counter up to `boundary` and writes the windows before it.
  void flush_windows(int64_t boundary, int64_t end_cycle);
  void write_side_files(int64_t end_cycle);
  // Runs a write; on an OutputError keeps it for finish() and stops writing.
  template <class F>
  void guarded(F&& write);

  Options opt_;
  std::string scope_;  // set_scope
  std::unique_ptr<io::OutFile> rt_, actions_out_, slices_out_;
  std::exception_ptr write_error_;
  int64_t windows_flushed_ = 0;  // actions.csv holds every window that starts before this
  std::vector<Resource> resources_;
  std::vector<int64_t> value_;        // current (final) value per resource
  std::vector<int64_t> since_;        // cycle the current value started
  std::vector<std::vector<Binding>> bindings_;  // per resource
  std::vector<Binding> always_;                 // count_every_cycle
  int64_t always_since_ = 0;
  std::vector<std::pair<std::string, std::string>> actions_;  // name, unit
  std::vector<char> in_bits_;           // per action: counted in bits (declare_action_in_bits)
  std::vector<int64_t> carried_bits_;   // per such action: bits below a byte not yet written
  // Announced changes not yet applied. `arrived_`: since the last advance, in announcement
  // order. `runs_`: sorted runs (stable by cycle), oldest announcements first, each with
  // the index of its first unapplied change. advance() sorts what arrived into a run,
  // appends it to the last run when it starts no earlier than that run ends, and merges
  // the last two runs while the older is at most twice the newer (as a binary counter
  // does), so every change is merged O(log n) times and a few runs stay. Changes of one
  // cycle are applied oldest run first, each run in its order: announcement order, as
  // one stable sort of everything would give. (One sorted vector merged with each
  // advance's arrivals was quadratic when the memory announces a long pass ahead: 62 %
  // of a traced decode GEMV in std::inplace_merge.)
  struct Run {
    std::vector<Change> changes;
    size_t head = 0;
    size_t left() const { return changes.size() - head; }
  };
  void sort_arrivals();
  std::vector<Change> arrived_;
  std::vector<Run> runs_;
  // A vector of changes whose run is done, kept for the next run: a fresh allocation per
  // advance was a fifth of a traced run's time under AddressSanitizer, and shows in Release.
  std::vector<Change> spare_;
  void recycle(std::vector<Change>&& v) {
    if (v.capacity() > spare_.capacity()) spare_ = std::move(v);
  }
  std::vector<Change> take_spare() {
    std::vector<Change> v = std::move(spare_);
    spare_ = {};
    v.clear();
    return v;
  }
  size_t pending_ = 0;  // announced, not yet applied
  std::vector<Change> same_cycle_;
  std::vector<Record> buffer_;
  std::vector<LayerSpan> layers_;
  bool one_layer_ = false;
  // Open windows only: (window start, layer) -> count per action
  std::map<std::pair<int64_t, int>, std::vector<int64_t>> counters_;
  int64_t now_ = 0;
  uint64_t records_ = 0;
  Crc32 records_crc_;  // of rt.bin's records as written
  uint64_t action_rows_ = 0, slice_rows_ = 0;
  Manifest manifest_;
  uint32_t manifest_crc32_ = 0;
  size_t peak_pending_ = 0;
  bool finished_ = false;
};

}  // namespace cstsim::trace
