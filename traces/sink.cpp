#include "traces/sink.h"

#include "core/input_error.h"

#include "core/csv.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>


namespace cstsim::trace {

char class_letter(ResourceClass c) { return static_cast<char>(c); }

ResourceClass class_from_letter(char c) {
  switch (c) {
    case 'C': return ResourceClass::Compute;
    case 'M': return ResourceClass::Memory;
    case 'N': return ResourceClass::Network;
    case 'S': return ResourceClass::Storage;
  }
  throw std::invalid_argument(fmt::format("unknown resource class '{}'", c));
}

TraceSink::TraceSink(Options options) : opt_(std::move(options)) {
  if (opt_.window <= 0) throw std::invalid_argument("trace window must be positive");
  std::error_code ec;
  std::filesystem::create_directories(opt_.dir, ec);
  if (ec) throw io::OutputError(opt_.dir, "cannot create the directory: " + ec.message());
  rt_ = std::make_unique<io::OutFile>(opt_.dir / "rt.bin");
  const FileHeader h{};
  rt_->write(&h, sizeof h);  // patched by finish()
  buffer_.reserve(opt_.buffer_records);
  arrived_.reserve(4096);
  actions_out_ = std::make_unique<io::OutFile>(opt_.dir / "actions.csv");
  actions_out_->put("layer,window_start,window_end,action,unit,count\n");
  slices_out_ = std::make_unique<io::OutFile>(opt_.dir / "slices.csv");
  slices_out_->put("track,name,start_cycle,end_cycle\n");
}

void TraceSink::slice(const std::string& track, const std::string& name, int64_t start, int64_t end) {
  if (end < start) throw std::logic_error(fmt::format("slice {} on {}: ends at {} before its start {}", name, track, end, start));
  guarded([&] {
    slices_out_->put(csv::row({scope_ + track, name, std::to_string(start), std::to_string(end)}));
    ++slice_rows_;
  });
}

TraceSink::~TraceSink() = default;

template <class F>
void TraceSink::guarded(F&& write) {
  if (write_error_) return;
  try {
    write();
  } catch (const io::OutputError&) {
    write_error_ = std::current_exception();
    if (opt_.on_write_error) opt_.on_write_error();
  }
}

void TraceSink::rethrow_write_error() const {
  if (write_error_) std::rethrow_exception(write_error_);
}

ResourceId TraceSink::declare(Resource r) {
  if (records_ > 0 || pending_ > 0) throw std::logic_error("declare resources before reporting changes");
  if (!scope_.empty()) {
    r.name = scope_ + r.name;
    r.owner = scope_ + r.owner;
    if (const size_t arrow = r.edge.find('>'); arrow != std::string::npos)
      r.edge = scope_ + r.edge.substr(0, arrow) + ">" + scope_ + r.edge.substr(arrow + 1);
    if (const size_t colon = r.carries.find(':');
        colon != std::string::npos && (r.carries.compare(0, colon, "actions") == 0 || r.carries.compare(0, colon, "share") == 0)) {
      std::string carries = r.carries.substr(0, colon + 1);
      for (size_t at = colon + 1; at <= r.carries.size();) {
        const size_t plus = std::min(r.carries.find('+', at), r.carries.size());
        carries += (at > colon + 1 ? "+" : "") + scope_ + r.carries.substr(at, plus - at);
        at = plus + 1;
      }
      r.carries = carries;
    }
  }
  for (const Resource& o : resources_)
    if (o.name == r.name) throw std::logic_error("resource declared twice: " + r.name);
  if (r.capacity <= 0) throw std::logic_error("resource capacity must be positive: " + r.name);
  r.id = ResourceId(resources_.size());
  resources_.push_back(r);
  value_.push_back(0);
  since_.push_back(0);
  bindings_.emplace_back();
  return r.id;
}

ActionId TraceSink::declare_action(const std::string& scoped, const std::string& unit) {
  const std::string name = scope_ + scoped;
  for (size_t i = 0; i < actions_.size(); ++i)
    if (actions_[i].first == name) {
      if (in_bits_[i]) throw std::logic_error("action " + name + " is counted in bits");
      return ActionId(i);
    }
  actions_.emplace_back(name, unit);
  in_bits_.push_back(0);
  carried_bits_.push_back(0);
  return ActionId(actions_.size() - 1);
}

ActionId TraceSink::declare_action_in_bits(const std::string& scoped) {
  const std::string name = scope_ + scoped;
  for (size_t i = 0; i < actions_.size(); ++i)
    if (actions_[i].first == name) {
      if (!in_bits_[i]) throw std::logic_error("action " + name + " is counted in bytes");
      return ActionId(i);
    }
  const ActionId id = declare_action(scoped, "byte");
  in_bits_[id] = 1;
  return id;
}

void TraceSink::bind(ActionId action, ResourceId resource, int64_t per_unit_cycle) {
  bindings_.at(resource).push_back({action, per_unit_cycle});
}

void TraceSink::bind_in_layer(ActionId action, ResourceId resource, int layer, int64_t per_unit_cycle) {
  for (Binding& b : bindings_.at(resource))
    if (b.action == action) {
      auto it = std::lower_bound(b.in_layer.begin(), b.in_layer.end(), std::make_pair(layer, INT64_MIN));
      if (it != b.in_layer.end() && it->first == layer) it->second = per_unit_cycle;
      else b.in_layer.insert(it, {layer, per_unit_cycle});
      return;
    }
  throw std::logic_error("bind_in_layer: the action is not bound to the resource");
}

void TraceSink::push(int64_t cycle, ResourceId id, int64_t value, bool delta) {
  if (finished_) throw std::logic_error("trace already finished");
  if (cycle < now_)
    throw std::logic_error(fmt::format("{}: change at cycle {} announced after cycle {} was final",
                                       resources_.at(id).name, cycle, now_));
  arrived_.push_back({cycle, value, id, delta});
  peak_pending_ = std::max(peak_pending_, ++pending_);
}

void TraceSink::count(int64_t cycle, ActionId id, int64_t n) {
  if (n == 0) return;
  const int layer = layer_at(cycle);
  const int64_t window_start = cycle - cycle % opt_.window;
  auto& slot = counters_[{window_start, layer}];
  if (slot.size() < actions_.size()) slot.resize(actions_.size(), 0);
  slot[id] += n;
}

void TraceSink::begin_layer(int index, const std::string& name, int64_t start_cycle) {
  // Every cluster announces the layer it starts; the same layer at the same cycle counts once.
  // A layer whose vector kernels began it is not begun again by its first pass. With several chips
  // the first chip to begin a layer begins it for the trace.
  if (one_layer_ || (!layers_.empty() && index <= layers_.back().index)) return;
  if (!layers_.empty() && start_cycle <= layers_.back().start)
    throw std::logic_error("layers must start in increasing cycle order");
  if (start_cycle < now_) throw std::logic_error("a layer must begin at or after the current cycle");
  layers_.push_back({index, name, start_cycle});
}

int TraceSink::layer_at(int64_t cycle) const {
  auto it = std::upper_bound(layers_.begin(), layers_.end(), cycle,
                             [](int64_t c, const LayerSpan& l) { return c < l.start; });
  if (it == layers_.begin()) return -1;
  return std::prev(it)->index;
}

void TraceSink::sort_arrivals() {
  if (arrived_.empty()) return;
  auto by_cycle = [](const Change& a, const Change& b) { return a.cycle < b.cycle; };
  if (!std::is_sorted(arrived_.begin(), arrived_.end(), by_cycle)) std::stable_sort(arrived_.begin(), arrived_.end(), by_cycle);
  if (!runs_.empty() && runs_.back().left() > 0 && runs_.back().changes.back().cycle <= arrived_.front().cycle) {
    Run& last = runs_.back();
    last.changes.insert(last.changes.end(), arrived_.begin(), arrived_.end());
  } else {
    runs_.push_back({std::move(arrived_), 0});
    arrived_ = take_spare();
  }
  arrived_.clear();
  while (runs_.size() >= 2 && runs_[runs_.size() - 2].left() <= 2 * runs_.back().left()) {
    Run& older = runs_[runs_.size() - 2];
    const Run& newer = runs_.back();
    std::vector<Change> merged = take_spare();
    merged.reserve(older.left() + newer.left());
    // std::merge takes the first range's element on equal cycles: the older announcement.
    std::merge(older.changes.begin() + long(older.head), older.changes.end(), newer.changes.begin() + long(newer.head),
               newer.changes.end(), std::back_inserter(merged), by_cycle);
    recycle(std::move(older.changes));
    older = {std::move(merged), 0};
    recycle(std::move(runs_.back().changes));
    runs_.pop_back();
  }
}

void TraceSink::advance(int64_t now) {
  sort_arrivals();
  for (;;) {
    int64_t cycle = INT64_MAX;
    for (const Run& r : runs_)
      if (r.left() > 0) cycle = std::min(cycle, r.changes[r.head].cycle);
    if (cycle >= now) break;
    same_cycle_.clear();
    for (Run& r : runs_)
      for (; r.head < r.changes.size() && r.changes[r.head].cycle == cycle; ++r.head) same_cycle_.push_back(r.changes[r.head]);
    pending_ -= same_cycle_.size();
    apply_cycle(cycle, same_cycle_);
  }
  // Applied runs go; a run mostly applied drops its applied part.
  for (Run& r : runs_)
    if (r.left() == 0) {
      recycle(std::move(r.changes));
      r = {};  // empty, no head: still left() == 0 for the erase below
    }
  runs_.erase(std::remove_if(runs_.begin(), runs_.end(), [](const Run& r) { return r.left() == 0; }), runs_.end());
  for (Run& r : runs_)
    if (2 * r.head > r.changes.size()) {
      r.changes.erase(r.changes.begin(), r.changes.begin() + long(r.head));
      r.head = 0;
    }
  now_ = std::max(now_, now);
  // Windows before the one holding `now` are complete: write them out so memory
  // stays bounded by the open window, not the run.
  const int64_t boundary = now_ - now_ % opt_.window;
  if (boundary > windows_flushed_) flush_windows(boundary, -1);
}

void TraceSink::flush_windows(int64_t boundary, int64_t end_cycle) {
  const int64_t accrue_to = end_cycle >= 0 ? std::min(boundary, end_cycle) : boundary;
  for (ResourceId id = 0; id < resources_.size(); ++id) {
    if (bindings_[id].empty() || since_[id] >= accrue_to) continue;
    for (const Binding& b : bindings_[id]) accrue(b, since_[id], accrue_to, value_[id]);
    since_[id] = accrue_to;
  }
  if (always_since_ < accrue_to) {
    for (const Binding& b : always_) accrue(b.action, always_since_, accrue_to, b.per_unit);
    always_since_ = accrue_to;
  }
  std::vector<ActionId> order(actions_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = ActionId(i);
  std::sort(order.begin(), order.end(), [&](ActionId a, ActionId b) { return actions_[a].first < actions_[b].first; });
  for (auto it = counters_.begin(); it != counters_.end() && it->first.first < boundary;) {
    const int64_t aligned = it->first.first;  // not a structured binding: the lambda below captures it
    const int layer = it->first.second;
    int64_t start = aligned, end = aligned + opt_.window;
    if (end_cycle >= 0) end = std::min(end, end_cycle);
    // layers_ is sorted by index (begin_layer refuses anything else): a binary search, not a scan
    // (a scan made tracing quadratic in the number of layers).
    const auto span = std::lower_bound(layers_.begin(), layers_.end(), layer,
                                       [](const LayerSpan& l, int64_t index) { return l.index < index; });
    if (span != layers_.end() && span->index == layer) {
      start = std::max(start, span->start);
      if (span + 1 != layers_.end()) end = std::min(end, (span + 1)->start);
    }
    for (ActionId a : order)  // bits to whole bytes, the rest carried
      if (a < it->second.size() && in_bits_[a] && it->second[a] != 0) {
        const int64_t bits = carried_bits_[a] + it->second[a];
        it->second[a] = bits / 8;
        carried_bits_[a] = bits % 8;
      }
    guarded([&] {
      for (ActionId a : order)
        if (a < it->second.size() && it->second[a] != 0) {
          actions_out_->print("{},{},{},{},{},{}\n", layer, start, end, actions_[a].first, actions_[a].second,
                              it->second[a]);
          ++action_rows_;
        }
    });
    it = counters_.erase(it);
  }
  windows_flushed_ = boundary;
  check_size();
}

void TraceSink::apply_cycle(int64_t cycle, std::vector<Change>& changes) {
  // Group by resource (stable: announcement order is kept within a resource).
  if (changes.size() > 1)
    std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) { return a.id < b.id; });
  for (size_t i = 0; i < changes.size();) {
    const ResourceId id = changes[i].id;
    int64_t v = value_[id];
    for (; i < changes.size() && changes[i].id == id; ++i) v = changes[i].delta ? v + changes[i].value : changes[i].value;
    if (v == value_[id]) continue;
    const Resource& r = resources_[id];
    if (v < 0 || v > r.capacity)
      throw std::logic_error(fmt::format("{}: occupancy {} outside [0, {}] at cycle {}", r.name, v, r.capacity, cycle));
    for (const Binding& b : bindings_[id]) accrue(b, since_[id], cycle, value_[id]);
    value_[id] = v;
    since_[id] = cycle;
    write_record(cycle, id, v);
  }
}

void TraceSink::write_record(int64_t cycle, ResourceId id, int64_t value) {
  Record rec{uint64_t(cycle), id, 0, value};
  buffer_.push_back(rec);
  ++records_;
  if (buffer_.size() >= opt_.buffer_records) flush_buffer();
}

void TraceSink::flush_buffer() {
  if (buffer_.empty()) return;
  records_crc_.process_bytes(buffer_.data(), sizeof(Record) * buffer_.size());
  guarded([&] { rt_->write(buffer_.data(), sizeof(Record) * buffer_.size()); });
  buffer_.clear();
  check_size();
}

void TraceSink::check_size() {
  if (opt_.max_bytes == 0 || write_error_) return;
  const uint64_t bytes = rt_->appended_bytes() + actions_out_->appended_bytes() + slices_out_->appended_bytes();
  if (bytes <= opt_.max_bytes) return;
  write_error_ = std::make_exception_ptr(InputError(
      "--max-trace-bytes", 0, "",
      fmt::format("the trace passed {} bytes at cycle {} and was stopped: raise the limit, give a coarser "
                  "--window (now {} cycles), or run with --no-trace",
                  opt_.max_bytes, now_, opt_.window)));
  if (opt_.on_write_error) opt_.on_write_error();
}

void TraceSink::accrue(const Binding& b, int64_t from, int64_t to, int64_t value) {
  if (b.in_layer.empty()) return accrue(b.action, from, to, value * b.per_unit);
  while (from < to) {  // piece by piece at layer starts, each at its layer's rate
    auto next = std::upper_bound(layers_.begin(), layers_.end(), from,
                                 [](int64_t c, const LayerSpan& l) { return c < l.start; });
    const int64_t piece_end = next != layers_.end() ? std::min(to, next->start) : to;
    accrue(b.action, from, piece_end, value * b.per_unit_in(layer_at(from)));
    from = piece_end;
  }
}

void TraceSink::count_spans(int64_t from, int64_t to, std::initializer_list<Rate> rates) {
  while (from < to) {
    const int64_t window_start = from - from % opt_.window;
    int64_t piece_end = std::min(to, window_start + opt_.window);
    // Cut at the next layer start inside the piece.
    auto next = std::upper_bound(layers_.begin(), layers_.end(), from,
                                 [](int64_t c, const LayerSpan& l) { return c < l.start; });
    if (next != layers_.end()) piece_end = std::min(piece_end, next->start);
    auto& slot = counters_[{window_start, layer_at(from)}];
    if (slot.size() < actions_.size()) slot.resize(actions_.size(), 0);
    for (const Rate& r : rates) slot[r.id] += r.per_cycle * (piece_end - from);
    from = piece_end;
  }
}

void TraceSink::accrue(ActionId action, int64_t from, int64_t to, int64_t amount) {
  if (amount == 0 || from >= to) return;  // no window of its own for nothing
  count_spans(from, to, {{action, amount}});
}

void TraceSink::finish(int64_t end_cycle) {
  if (finished_) return;
  advance(end_cycle);
  // Changes announced for end_cycle itself lie outside the trace; later ones are a bug.
  for (const Run& r : runs_)
    for (auto c = r.changes.begin() + long(r.head); c != r.changes.end(); ++c)
      if (c->cycle > end_cycle)
        throw std::logic_error(fmt::format("{}: change at cycle {} after the end of the run ({})",
                                           resources_[c->id].name, c->cycle, end_cycle));
  runs_.clear();
  pending_ = 0;
  flush_windows(end_cycle + opt_.window, end_cycle);  // accrue to the end, write every window
  flush_buffer();
  rethrow_write_error();
  actions_out_->commit();
  slices_out_->commit();
  FileHeader h{};
  std::memcpy(h.magic, kMagic, sizeof h.magic);
  h.version = kVersion;
  h.header_bytes = kHeaderBytes;
  h.clock_hz = opt_.clock_hz;
  h.period_s = 1.0 / opt_.clock_hz;
  h.end_cycle = uint64_t(end_cycle);
  h.record_count = records_;
  h.resource_count = uint32_t(resources_.size());
  h.record_bytes = kRecordBytes;
  h.action_window = uint64_t(opt_.window);
  rt_->write_at(0, &h, sizeof h);
  rt_->commit();
  manifest_.end_cycle = uint64_t(end_cycle);
  manifest_.records = records_;
  manifest_.files["rt.bin"] = {kHeaderBytes + records_ * kRecordBytes, records_crc_.checksum(), records_};
  manifest_.files["actions.csv"] = {actions_out_->appended_bytes(), actions_out_->appended_crc32(), action_rows_};
  manifest_.files["slices.csv"] = {slices_out_->appended_bytes(), slices_out_->appended_crc32(), slice_rows_};
  write_side_files(end_cycle);
  const std::string manifest = manifest_.json();
  manifest_crc32_ = crc32_of(manifest);
  io::write_file(opt_.dir / "manifest.json", manifest);
  finished_ = true;
}

void TraceSink::write_side_files(int64_t end_cycle) {
  std::string res = "id,name,class,unit,capacity,owner,level,edge,carries\n";
  for (const Resource& r : resources_)
    res += csv::row({std::to_string(r.id), r.name, std::string(1, class_letter(r.cls)), r.unit, std::to_string(r.capacity),
                     r.owner, r.level, r.edge, r.carries});
  io::write_file(opt_.dir / "resources.csv", res);
  manifest_.files["resources.csv"] = {res.size(), crc32_of(res), resources_.size()};

  auto layer_end = [&](size_t i) { return i + 1 < layers_.size() ? layers_[i + 1].start : end_cycle; };
  std::string lay = "layer,name,start_cycle,end_cycle\n";
  for (size_t i = 0; i < layers_.size(); ++i)
    lay += csv::row({std::to_string(layers_[i].index), layers_[i].name, std::to_string(layers_[i].start),
                     std::to_string(layer_end(i) - 1)});
  io::write_file(opt_.dir / "layers.csv", lay);
  manifest_.files["layers.csv"] = {lay.size(), crc32_of(lay), layers_.size()};

}

}  // namespace cstsim::trace
