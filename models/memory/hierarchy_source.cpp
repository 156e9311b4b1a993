#include "models/memory/hierarchy_source.h"
#include "models/dma/explain_wait.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "core/registry.h"
#include "core/arith.h"
#include "models/array/array_dataflow.h"
#include "models/array/fold_timing.h"
#include "models/hbm/hbm_spec.h"
#include "models/noc/noc_config.h"

namespace cstsim {

// Records this cluster's scratchpad residency for the trace.
struct HierarchySource::Observer : spad::ScratchpadObserver {
  ResidencyTimeline& out;
  explicit Observer(ResidencyTimeline& t) : out(t) {}
  void on_residency(spad::Partition p, int64_t cycle, int64_t bytes) override {
    out[size_t(p)].step(cycle, bytes);
  }
};

HierarchySource::HierarchySource(const AcceleratorSpec& a, const FoldPlan& plan, LayerDmaPlan dma, int64_t layer_start,
                                 bool record_timeline, std::shared_ptr<MemoryGroup> group, int cluster,
                                 bool lockstep)
    : plan_(plan),
      dma_(std::move(dma)),
      layer_start_(layer_start),
      acc_(a.accumulator_bytes()),
      spad_word_(a.scratchpad.word_bytes),
      group_(std::move(group)),
      cluster_(cluster),
      lockstep_(lockstep) {
  if (!group_) group_ = std::make_shared<MemoryGroup>(a, 1, record_timeline, layer_start);
  spad_ = &group_->spad(cluster_);
  dma_base_ = group_->dma().stats(cluster_);
  for (spad::Partition p : spad::kAllPartitions) spad_base_[size_t(p)] = spad_->stats(p);
  spad_->restart_peaks();
  if (record_timeline) {
    observer_ = std::make_unique<Observer>(residency_);
    spad_->add_observer(observer_.get());
  }
  own_reads_ = int(dma_.reads.size());
  read_id_.assign(dma_.reads.size(), -1);
  write_id_.assign(dma_.writes.size(), -1);
  read_in_spad_.assign(dma_.reads.size(), -1);
  last_user_.assign(dma_.reads.size(), -1);
  release_.assign(dma_.reads.size(), -1);
  for (size_t g = 0; g < plan_.folds.size(); ++g) {
    last_user_[size_t(dma_.stream_read[g])] = std::max(last_user_[size_t(dma_.stream_read[g])], int(g));
    last_user_[size_t(dma_.stationary_read[g])] = std::max(last_user_[size_t(dma_.stationary_read[g])], int(g));
  }
  read_changes_.assign(dma_.reads.size(), 0);
  write_changes_.assign(dma_.writes.size(), 0);
  read_hbm_taken_.assign(dma_.reads.size(), 0);
  read_spad_taken_.assign(dma_.reads.size(), 0);
  write_hbm_taken_.assign(dma_.writes.size(), 0);
  write_spad_taken_.assign(dma_.writes.size(), 0);
  critical_.resize(plan_.folds.size());
  fetches_.resize(plan_.folds.size());
  folds_.reserve(plan_.folds.size());
}

void HierarchySource::add_prefetch(const std::vector<DmaTransfer>& next_reads) {
  if (reads_enqueued_ > 0 || !folds_.empty() || own_reads_ != int(dma_.reads.size()))
    throw std::logic_error("hierarchy source: prefetch added after the first question, or twice");
  for (const DmaTransfer& t : next_reads) {
    if (t.after_fold >= 0) throw std::logic_error("hierarchy source: a prefetched read waits for a fold");
    dma_.reads.push_back(t);
  }
  const size_t n = dma_.reads.size();
  read_id_.resize(n, -1);
  read_in_spad_.resize(n, -1);
  last_user_.resize(n, -1);
  release_.resize(n, -1);
  read_changes_.resize(n, 0);
  read_hbm_taken_.resize(n, 0);
  read_spad_taken_.resize(n, 0);
}

std::vector<int> HierarchySource::prefetched() const {
  return std::vector<int>(read_id_.begin() + own_reads_, read_id_.end());
}

void HierarchySource::adopt_prefetched(const std::vector<int>& reads, const std::vector<int>& ids) {
  if (reads_enqueued_ > 0 || !folds_.empty() || reads.size() != ids.size())
    throw std::logic_error("hierarchy source: prefetched reads adopted late or mismatched");
  adopted_.resize(dma_.reads.size(), 0);
  for (size_t k = 0; k < reads.size(); ++k) {
    if (reads[k] < 0 || reads[k] >= own_reads_) throw std::logic_error("hierarchy source: no such read to adopt");
    read_id_[size_t(reads[k])] = ids[k];
    read_changes_[size_t(reads[k])] = 1;  // the previous pass made it resident and announced its actions
    adopted_[size_t(reads[k])] = 1;
  }
}

void HierarchySource::keep_outputs_on_chip(spad::Partition to, int64_t room) {
  if (writes_enqueued_ > 0 || !folds_.empty())
    throw std::logic_error("hierarchy source: outputs kept on chip too late");
  if (dma_.writes.empty() || room <= 0) throw std::logic_error("hierarchy source: no outputs to keep on chip");
  outputs_to_ = to;
  on_chip_room_ = room;
}

std::vector<int> HierarchySource::on_chip_outputs() const { return outputs_to_ ? write_id_ : std::vector<int>{}; }

void HierarchySource::adopt_on_chip(const std::vector<int>& reads, const std::vector<int>& ids) {
  if (reads.empty()) return;
  if (ids.empty()) throw std::logic_error("hierarchy source: on-chip input without the previous outputs");
  // Every read is there once the last of the previous layer's write-backs is: the layer starts after it.
  const int last = *std::max_element(ids.begin(), ids.end(), [this](int a, int b) {
    return dma().transfer(a).done < dma().transfer(b).done;
  });
  for (int k : reads)
    if (dma_.reads[size_t(k)].after_fold >= 0)
      throw std::logic_error("hierarchy source: an on-chip input read waits for a fold");
  adopt_prefetched(reads, std::vector<int>(reads.size(), last));
}

HierarchySource::~HierarchySource() {
  if (observer_) spad_->remove_observer(observer_.get());
}

void HierarchySource::learn_folds(int upto, const std::vector<int64_t>& load_starts) {
  const spad::Partition stream = spad::partition_named(dma_.stream_partition), stationary = spad::partition_named(dma_.stationary_partition);
  const bool os = roles(plan_.dataflow).stationary_outputs;
  for (int j = int(folds_.size()); j < upto; ++j) {
    const Fold& f = plan_.folds[size_t(j)];
    FoldHistory h;
    h.load = load_starts[size_t(j)];
    h.S = array_dataflow(plan_.dataflow).stream_start(plan_, j, h.load, j > 0 ? folds_.back().S : 0);
    h.last_input = fold_last_input(plan_, j, h.S);
    h.end = fold_last_output(plan_, j, h.S);
    folds_.push_back(h);
    const int s = dma_.stream_read[size_t(j)], tile = dma_.stationary_read[size_t(j)];
    release_[size_t(s)] = std::max(release_[size_t(s)], fold_point(j, FoldPoint::LastInput));
    release_[size_t(tile)] = std::max(release_[size_t(tile)], fold_point(j, dma_.tile_frees));
    // The array's own port use, declared before any DMA traffic that could meet it.
    // Each operand at its stored width.
    const Matrix tile_of = tile_matrix(plan_.dataflow), stream_of = stream_matrix(plan_.dataflow);
    const int tile_words = int(ceil_div(dma_.words_bytes(tile_of, f.cols_used), spad_word_));  // a row of the tile
    if (os) {
      // A's block enters the rows and B's the columns over the same T cycles (skewed);
      // the r x c results leave one row per cycle from the first output, final.
      spad_->array_access(stationary, h.S, h.S + f.t, tile_words);
      spad_->array_access(stream, h.S, h.S + f.t, int(ceil_div(dma_.words_bytes(stream_of, f.rows_used), spad_word_)));
      if (!f.drains) continue;  // a K chunk whose sums stay in the PEs
      const int64_t first_output = h.end - f.rows_used + 1;
      spad_->array_access(spad::Partition::Ofmap, first_output, h.end + 1,
                          int(ceil_div(int64_t(f.cols_used) * acc_, spad_word_)));
      continue;
    }
    spad_->array_access(stationary, h.load, h.load + f.rows_used, tile_words);
    spad_->array_access(stream, h.S, h.S + plan_.T,
                        int(ceil_div(dma_.words_bytes(stream_of, plan_.stream_words(f.row0, f.rows_used)), spad_word_)));
    // Results: each column's bottom link delivers one accumulator per cycle, skewed by
    // column, so a fold's T result rows are written over T cycles from when its first
    // column starts (S + R - 1): the exact words, at most c - 1 cycles early for the
    // later columns, and never overlapping the next fold's (it streams T cycles later).
    const int rmw = f.row0 > 0 ? 2 : 1;  // later row folds add to the partial sums
    spad_->array_access(spad::Partition::Ofmap, h.S + plan_.R - 1, h.S + plan_.R - 1 + plan_.T,
                        rmw * int(ceil_div(int64_t(f.cols_used) * acc_, spad_word_)));
  }
}

void HierarchySource::enqueue_known(int g) {
  // Sampled: what is enqueued cannot lie before what the memory has simulated (a skipped span's
  // estimated slot times may).
  const int64_t memory_now = skipping_ ? ceil_div(dma().now(), dma().acc_period()) : 0;
  while (reads_enqueued_ < int(dma_.reads.size())) {
    if (read_id_[size_t(reads_enqueued_)] != -1) {  // loaded by the previous pass (adopt_prefetched), or skipped
      ++reads_enqueued_;
      continue;
    }
    const DmaTransfer& t = dma_.reads[size_t(reads_enqueued_)];
    int64_t earliest = layer_start_;
    if (t.after_fold >= 0) {  // its slot frees at a point of an earlier fold, known once that fold started
      if (t.after_fold >= g) break;
      earliest = fold_point(t.after_fold, t.after);
      if (t.after_fold < hold_fold_) earliest = std::max(earliest, hold_until_);
    }
    const spad::Partition p =
        spad::partition_named(t.operand == Operand::Stationary ? dma_.stationary_partition : dma_.stream_partition);
    const bool next_pass = reads_enqueued_ >= own_reads_;  // a prefetch: its pass is the next step's
    read_id_[size_t(reads_enqueued_)] = dma().enqueue(cluster_, t, p, std::max({earliest, layer_start_, memory_now}),
                                                      group_->step() + (next_pass ? 1 : 0));
    ++reads_enqueued_;
  }
  while (writes_enqueued_ < int(dma_.writes.size())) {
    const DmaTransfer& t = dma_.writes[size_t(writes_enqueued_)];
    if (t.fold >= g) break;
    if (skipped(write_id_[size_t(writes_enqueued_)])) {
      ++writes_enqueued_;
      continue;
    }
    // An on-chip write-back is the next layer's input: it belongs to the next step's window too
    // (the next pass adopts it), so the DMA keeps it until that step is over.
    write_id_[size_t(writes_enqueued_)] =
        dma().enqueue(cluster_, t, spad::Partition::Ofmap, std::max(folds_[size_t(t.fold)].end + 1, memory_now),
                      group_->step() + (outputs_to_ ? 1 : 0), outputs_to_, dma().clusters() > 1);
    ++writes_enqueued_;
  }
}

void HierarchySource::forget_history(int g) {
  // The stall ledger explains a fold right after it is timed, from the cycle the array could
  // have gone, which lies after fold g - 2 loaded less a fold's stream, load and skew: a
  // request that freed its slot before that will never be asked about again, nor will the
  // scratchpad's cycles before it (but those the memory has not simulated yet or the DMA's port
  // queues still look back to).
  if (g < 2) return;
  const int64_t mark = folds_[size_t(g - 2)].load - plan_.T - plan_.R - plan_.C;
  if (mark <= layer_start_) return;
  // The memory may lag the array (data fetched ahead): the scratchpad keeps what it has yet to simulate.
  group_->forget_history(cluster_, mark);
  const int64_t memory_now = dma().now() / dma().acc_period();
  // Without a trace nobody takes the residency as it goes: make the changes known so far, so
  // they are not all held until the drain. Every change before both the last learned fold's
  // load (a release not yet known is a later fold's point) and the memory's clock (an occupancy
  // not yet known is a later issue) is known.
  if (!observer_) record_residency(std::min(folds_.back().load, memory_now));
  forget_reads(g);
}

void HierarchySource::forget_reads(int g) {
  // A read of this pass's own that is done, released (its residency made), announced (when its
  // actions are recorded) and used by no fold after g - 2 (fold g - 1 may still be explained):
  // no question, stall explanation, residency change or announcement will look at it again.
  const bool announced_only = dma().records_actions();
  auto needed = [&](int k) {
    if (skipped(read_id_[size_t(k)])) return false;
    return read_changes_[size_t(k)] != 2 || last_user_[size_t(k)] >= g - 1 ||
           (announced_only && k >= reads_announced_) || !dma().done(read_id_[size_t(k)]);
  };
  auto forget = [&](int k) {
    if ((adopted_.empty() || !adopted_[size_t(k)]) && !skipped(read_id_[size_t(k)]))
      dma().forget_transfer(read_id_[size_t(k)]);
  };
  size_t kept = 0;
  for (int k : reads_kept_) {
    if (needed(k))
      reads_kept_[kept++] = k;
    else
      forget(k);
  }
  reads_kept_.resize(kept);
  for (const int end = std::min(reads_enqueued_, own_reads_); read_scan_ < end; ++read_scan_) {
    if (needed(read_scan_))
      reads_kept_.push_back(read_scan_);
    else
      forget(read_scan_);
  }
}

int64_t HierarchySource::fold_point(int fold, FoldPoint point) const {
  const FoldHistory& h = folds_[size_t(fold)];
  return point == FoldPoint::LoadDone ? h.load + plan_.folds[size_t(fold)].rows_used : h.last_input + 1;
}

void HierarchySource::wait_done(int id) {
  const DmaSystem& d = dma();
  group_->wait_for(cluster_, [&d, id] { return d.done(id); });
}

int64_t HierarchySource::in_scratchpad(int read) {
  // The DMA's landing buffer writes the data as the array's port use allows (DmaSystem).
  const int id = read_id_[size_t(read)];
  if (skipped(id)) return read_in_spad_[size_t(read)] = layer_start_;  // resident since a skipped span
  wait_done(id);
  return read_in_spad_[size_t(read)] = dma().transfer(id).done;
}

int64_t HierarchySource::ready(int g, const std::vector<int64_t>& load_starts) {
  if (g < int(folds_.size())) throw std::logic_error("hierarchy source: fold asked for after it started");
  if (critical_[size_t(g)].kind >= 0) return fetches_[size_t(g)].ready;  // asked again, same history
  learn_folds(g, load_starts);
  forget_history(g);
  enqueue_known(g);
  const int w = dma_.output_wait[size_t(g)];
  if (w >= 0 && !skipped(write_id_[size_t(w)])) wait_done(write_id_[size_t(w)]);
  return answer(g);  // in_scratchpad waits for the reads
}

int64_t HierarchySource::poll(int g, const std::vector<int64_t>& load_starts, int64_t now) {
  if (!lockstep_) return ready(g, load_starts);
  if (critical_[size_t(g)].kind >= 0) return fetches_[size_t(g)].ready;
  learn_folds(g, load_starts);
  enqueue_known(g);
  group_->advance_to(now);
  const int tile = dma_.stationary_read[size_t(g)], slice = dma_.stream_read[size_t(g)];
  const int w = dma_.output_wait[size_t(g)];
  if (!dma().done(read_id_[size_t(tile)]) || !dma().done(read_id_[size_t(slice)]) ||
      (w >= 0 && !dma().done(write_id_[size_t(w)])))
    return now + 1;
  return answer(g);  // final: the data is all in the scratchpad (usable after its write latency)
}

void HierarchySource::fold_started(int g, const std::vector<int64_t>& load_starts) {
  if (!lockstep_) return;
  // What the closed form learns when fold g+1 asks, learned as soon as it is true.
  learn_folds(g + 1, load_starts);
  enqueue_known(g + 1);
}

int64_t HierarchySource::answer(int g) {
  const int tile = dma_.stationary_read[size_t(g)], slice = dma_.stream_read[size_t(g)];
  int64_t ready = std::max(layer_start_, in_scratchpad(tile));
  Critical crit{0, tile};
  if (const int64_t at = in_scratchpad(slice); at > ready) {
    ready = at;
    crit = {1, slice};
  }
  if (const int w = dma_.output_wait[size_t(g)]; w >= 0 && !skipped(write_id_[size_t(w)])) {
    if (const int64_t at = dma().transfer(write_id_[size_t(w)]).done; at > ready) {
      ready = at;
      crit = {2, w};
    }
  }
  critical_[size_t(g)] = crit;
  Fetch& f = fetches_[size_t(g)];
  if (skipped(read_id_[size_t(tile)])) {  // its tile stayed from a skipped span
    f.ready = ready;
    return ready;
  }
  const TransferState& t = dma().transfer(read_id_[size_t(tile)]);
  f.issue = t.earliest;
  f.start = t.first_issue;
  f.end = t.done;
  f.ready = ready;
  f.bytes = t.what.bytes;
  return ready;
}

void HierarchySource::explain_stall(int g, int64_t from, int64_t to, std::map<std::string, int64_t>& causes) const {
  const Critical& c = critical_[size_t(g)];
  const bool write = c.kind == 2;
  if (skipped(write ? write_id_[size_t(c.index)] : read_id_[size_t(c.index)])) {
    causes["dependency"] += to - from;  // data already there: the wait was the array's own
    return;
  }
  const RequestPath& p = dma().transfer(write ? write_id_[size_t(c.index)] : read_id_[size_t(c.index)]).critical;
  explain_request(p, write ? dma().to_acc(p.returned) : read_in_spad_[size_t(c.index)], from, to, causes);
}

void HierarchySource::explain_drain(int64_t from, int64_t to, std::map<std::string, int64_t>& causes) const {
  int last = -1;  // the write-back (or prefetch) that completed last: it defines memory_end
  bool read = false;
  auto consider = [&](int id, bool is_read) {
    if (skipped(id)) return;
    if (last < 0 || dma().transfer(id).done > dma().transfer(last).done) {
      last = id;
      read = is_read;
    }
  };
  for (int id : write_id_) consider(id, false);
  for (size_t k = size_t(own_reads_); k < read_id_.size(); ++k) consider(read_id_[k], true);
  if (last < 0) {
    causes["dependency"] += to - from;
    return;
  }
  // A write's way ends when its slot frees: its ack (= returned), or on chip its last word written.
  const RequestPath& p = dma().transfer(last).critical;
  explain_request(p, read ? dma().transfer(last).done : dma().to_acc(p.freed), from, to, causes);
}

// Charges [from, to) along the way of request p, which ends at `last` (its data usable), the
// segments in time order: a stall is the latest part of the way, so what lies before
// `from` was hidden behind the array's own work. Before its issue a request waited on
// whatever bound its issue cycle (RequestPath::issue_bound): the request whose return freed
// its outstanding slot (whose own way is then charged, recursively), the DMA's issue rate
// (one request per cycle: dma_issue), or its transfer's start (dependency).
void HierarchySource::explain_request(const RequestPath& p, int64_t last, int64_t from, int64_t to,
                                      std::map<std::string, int64_t>& causes) const {
  explain_wait(dma(), cluster_, p, last, from, to, causes);
}

void HierarchySource::record_residency(int64_t before) {
  struct Change {
    int64_t cycle;
    int64_t bytes;  // < 0 release
    spad::Partition p;
  };
  std::vector<Change> ch;
  const spad::Partition stream = spad::partition_named(dma_.stream_partition), stationary = spad::partition_named(dma_.stationary_partition);
  // A read's block is resident from its first request until the last fold that uses it is done
  // with it; a change is made once known (the fold learned, the request issued) and before `before`.
  const int learned = int(folds_.size());
  // A read resident until late (a stream slice every column fold uses) keeps reads_settled_
  // behind it, so the reads after it are looked at again each call: done ones cost a test.
  for (int k = reads_settled_; k < reads_enqueued_; ++k) {
    uint8_t& made = read_changes_[size_t(k)];
    if (made == 2) continue;
    const DmaTransfer& what = dma_.reads[size_t(k)];
    const spad::Partition p = what.operand == Operand::Stream ? stream : stationary;
    if (made == 0) {
      const int64_t issued = dma().transfer(read_id_[size_t(k)]).first_issue;
      if (issued < 0 || issued >= before) continue;
      ch.push_back({issued, what.bytes, p});
      made = 1;
    }
    if (k < own_reads_ && last_user_[size_t(k)] < learned) {  // a prefetch: the next pass releases it
      // Sampled: a read in flight when a skipped span began serves folds timed by estimate, which
      // may start before it lands; it is released once landed.
      const int64_t release = skipping_ ? std::max(release_[size_t(k)], dma().transfer(read_id_[size_t(k)]).done)
                                        : release_[size_t(k)];
      if (release < before) {
        ch.push_back({release, -what.bytes, p});
        made = 2;
      }
    }
  }
  while (reads_settled_ < reads_enqueued_ && read_changes_[size_t(reads_settled_)] == 2) ++reads_settled_;
  for (int w = writes_settled_; w < int(dma_.writes.size()); ++w) {
    // Accumulators live from the first output row of the first fold that writes them
    // (a fold's output rows end at its end) until written back.
    const int first = dma_.writes[size_t(w)].first_fold, last = dma_.writes[size_t(w)].fold;
    if (first >= learned) break;  // nor any later one
    const int64_t rows = fold_output_rows(plan_, first);
    const int64_t bytes = rows * plan_.folds[size_t(last)].cols_used * acc_;
    const int64_t from = folds_[size_t(first)].end - rows + 1;
    uint8_t& made = write_changes_[size_t(w)];
    if (made == 0 && from < before) {
      ch.push_back({from, bytes, spad::Partition::Ofmap});
      made = 1;
    }
    const TransferState* t =
        w < writes_enqueued_ && !skipped(write_id_[size_t(w)]) ? &dma().transfer(write_id_[size_t(w)]) : nullptr;
    if (made == 1 && t && t->done >= 0 && t->done < before) {
      ch.push_back({t->done, -bytes, spad::Partition::Ofmap});
      made = 2;
    } else if (made == 1 && skipped(write_id_[size_t(w)]) && last < learned && folds_[size_t(last)].end + 1 < before) {
      // Skipped after its room was taken (skip_from): the room goes when its last fold ends.
      ch.push_back({folds_[size_t(last)].end + 1, -bytes, spad::Partition::Ofmap});
      made = 2;
    }
    // On chip, the next layer's input takes its room in its partition from the first write-back's
    // issue (as a read's block does from its issue); the next layer releases it read by read.
    if (w == 0 && outputs_to_ && !on_chip_booked_ && t && t->first_issue >= 0 && t->first_issue < before) {
      ch.push_back({t->first_issue, on_chip_room_, *outputs_to_});
      on_chip_booked_ = true;
    }
  }
  auto settled = [&](int w) { return write_changes_[size_t(w)] == 2 && (w > 0 || !outputs_to_ || on_chip_booked_); };
  while (writes_settled_ < writes_enqueued_ && settled(writes_settled_)) ++writes_settled_;
  // Releases first within a cycle: a slot is reused the cycle it frees.
  std::stable_sort(ch.begin(), ch.end(), [](const Change& a, const Change& b) {
    return a.cycle != b.cycle ? a.cycle < b.cycle : a.bytes < b.bytes;
  });
  for (const Change& c : ch) {
    if (c.bytes >= 0)
      spad_->occupy(c.p, c.cycle, c.bytes);
    else
      spad_->release(c.p, c.cycle, -c.bytes);
  }
}

ResidencyTimeline HierarchySource::take_residency(int64_t before) {
  record_residency(before);
  ResidencyTimeline out;
  for (size_t p = 0; p < out.size(); ++p) take_before(residency_[p].steps, before, out[p].steps);
  return out;
}

void HierarchySource::take_actions(int64_t before,
                                   const std::function<void(ActionKind, int64_t, int64_t)>& out) {
  // Each request's bytes in the cycle the HBM moved them and in the cycle the ports did; a
  // transfer's lists are in time order, so each is read from where the last call stopped.
  auto drain = [&](const std::vector<std::pair<int64_t, int64_t>>& list, size_t& taken, ActionKind kind) {
    for (; taken < list.size() && list[taken].first < before; ++taken) out(kind, list[taken].first, list[taken].second);
    return taken == list.size();
  };
  // One direction's transfers from the first not yet settled (done and all announced); a
  // settled one drops its lists.
  // On-chip write-backs (overlap: pipeline) have no HBM part; their scratchpad writes, into the
  // next layer's partition, are in at_spad_in, read after their reads at the same index.
  auto direction = [&](const std::vector<int>& ids, int enqueued, int& announced, std::vector<size_t>& hbm_taken,
                       std::vector<size_t>& spad_taken, const auto& hbm_kind, ActionKind spad_kind) {
    bool settled = true;
    for (int k = announced; k < enqueued; ++k) {
      if (skipped(ids[size_t(k)])) {
        if (settled) announced = k + 1;
        continue;
      }
      const TransferState& t = dma().transfer(ids[size_t(k)]);
      const bool on_chip = t.on_chip_to >= 0;
      size_t& taken_in = hbm_taken[size_t(k)];  // an on-chip write's HBM list is empty: its counter serves at_spad_in
      const bool all = (on_chip ? drain(t.at_spad_in, taken_in, ActionKind::SpadWrite)
                                : drain(t.at_hbm, taken_in, hbm_kind(k))) &
                       drain(t.at_spad, spad_taken[size_t(k)], spad_kind);
      settled = settled && all && t.done >= 0;
      if (settled) {
        announced = k + 1;
        dma().forget_actions(ids[size_t(k)]);
      }
    }
  };
  direction(read_id_, reads_enqueued_, reads_announced_, read_hbm_taken_, read_spad_taken_, [&](int k) {
    return dma_.reads[size_t(k)].operand == Operand::Stationary ? ActionKind::HbmReadTile : ActionKind::HbmReadStream;
  }, ActionKind::SpadWrite);
  direction(write_id_, writes_enqueued_, writes_announced_, write_hbm_taken_, write_spad_taken_,
            [](int) { return ActionKind::HbmWrite; }, ActionKind::SpadRead);
}

int64_t HierarchySource::simulate_through(int g, const std::vector<int64_t>& load_starts, int64_t through) {
  learn_folds(g + 1, load_starts);
  enqueue_known(g + 1);
  const DmaSystem& d = dma();
  const int64_t until = through * d.acc_period();
  group_->wait_for(cluster_, [&d, until] { return d.next_event_time() > until; });
  if (group_->others_wait(cluster_)) dma().catch_up(through);
  return std::min(through + 1, dma().hbm_observed_before());
}

bool HierarchySource::drained_all() const {
  for (int id : write_id_)
    if (!skipped(id) && !dma().done(id)) return false;
  for (size_t k = size_t(own_reads_); k < read_id_.size(); ++k)
    if (!dma().done(read_id_[k])) return false;
  return true;
}

int64_t HierarchySource::drain(const std::vector<int64_t>& load_starts) {
  start_drain(load_starts);
  group_->wait_for(cluster_, [&] { return drained_all(); });
  finish_drain();
  return memory_end_;
}

void HierarchySource::start_drain(const std::vector<int64_t>& load_starts) {
  if (drained_) throw std::logic_error("hierarchy source: drained twice");
  drained_ = true;
  const int F = int(plan_.folds.size());
  learn_folds(F, load_starts);
  enqueue_known(F);
}

bool HierarchySource::drain_done(int64_t now) {
  group_->advance_to(now);
  if (!drained_all()) return false;
  finish_drain();
  return true;
}

void HierarchySource::finish_drain() {
  group_->done(cluster_);
  for (int id : write_id_)
    if (!skipped(id)) memory_end_ = std::max(memory_end_, dma().transfer(id).done - 1);
  for (size_t k = size_t(own_reads_); k < read_id_.size(); ++k)
    memory_end_ = std::max(memory_end_, dma().transfer(read_id_[k]).done - 1);
  record_residency(MemoryGroup::kTimelineEnd);
  for (uint8_t made : write_changes_)
    if (made == 1) throw std::logic_error("hierarchy source: a write-back's room taken and never given back");
}

void HierarchySource::skip_folds(const std::vector<uint8_t>& skipped_fold) {
  if (reads_enqueued_ > 0 || writes_enqueued_ > 0 || !folds_.empty())
    throw std::logic_error("hierarchy source: folds skipped after the first question");
  if (own_reads_ != int(dma_.reads.size()) || !adopted_.empty() || outputs_to_ || lockstep_ || group_->clusters() > 1)
    throw std::logic_error("hierarchy source: only a pass of its own can skip folds");
  if (skipped_fold.size() != plan_.folds.size()) throw std::logic_error("hierarchy source: skip flags for other folds");
  skipping_ = true;
  // A sampled run: the stack skips its idle stretches' refreshes at once (between windows, and
  // over a repeat's folds, nothing else happens in it).
  dma().hbm().enable_idle_skip();
  // Made (2): neither occupies nor releases the scratchpad, nor is announced.
  for (size_t k = 0; k < dma_.reads.size(); ++k)
    if (skipped_fold[size_t(dma_.reads[k].fold)]) read_id_[k] = kSkipped, read_changes_[k] = 2;
  for (size_t k = 0; k < dma_.writes.size(); ++k)
    if (skipped_fold[size_t(dma_.writes[k].fold)]) write_id_[k] = kSkipped, write_changes_[k] = 2;
}

void HierarchySource::skip_from(int from) {
  if (!skipping_) throw std::logic_error("hierarchy source: skip_from without skip_folds");
  for (size_t k = size_t(reads_enqueued_); k < dma_.reads.size(); ++k)
    if (dma_.reads[k].fold >= from && read_id_[k] == -1) read_id_[k] = kSkipped, read_changes_[k] = 2;
  for (size_t k = size_t(writes_enqueued_); k < dma_.writes.size(); ++k)
    if (dma_.writes[k].fold >= from) {
      // One whose accumulators already took their room (a fold before `from` began them) stays
      // made 1: record_residency gives the room back when its last fold ends.
      write_id_[k] = kSkipped;
      if (write_changes_[k] != 1) write_changes_[k] = 2;
    }
}

void HierarchySource::start_window(int first, int64_t cycle, double refresh_phase) {
  hold_fold_ = first, hold_until_ = cycle;
  if (refresh_phase >= 0) dma().hbm().rephase_refresh(cycle * dma().acc_period() / dma().hbm_period(), refresh_phase);
}

void HierarchySource::end_window(int next, const std::vector<int64_t>& load_starts) {
  learn_folds(next, load_starts);
  enqueue_known(next);
  // In flight: the reads not yet forgotten (forget_reads drops only done ones) and the writes.
  std::vector<int> open;
  auto add = [&](int id) {
    if (id >= 0 && !dma().done(id)) open.push_back(id);
  };
  for (int k : reads_kept_) add(read_id_[size_t(k)]);
  for (int k = read_scan_; k < reads_enqueued_; ++k) add(read_id_[size_t(k)]);
  for (int k = 0; k < writes_enqueued_; ++k) add(write_id_[size_t(k)]);
  group_->wait_for(cluster_, [&] {
    open.erase(std::remove_if(open.begin(), open.end(), [&](int id) { return dma().done(id); }), open.end());
    return open.empty();
  });
}

std::pair<int64_t, int64_t> HierarchySource::simulated_bytes() const {
  std::pair<int64_t, int64_t> b{0, 0};
  for (size_t k = 0; k < read_id_.size(); ++k)
    if (!skipped(read_id_[k])) b.first += dma_.reads[k].bytes;
  for (size_t k = 0; k < write_id_.size(); ++k)
    if (!skipped(write_id_[k])) b.second += dma_.writes[k].bytes;
  return b;
}

HierarchyLayerStats HierarchySource::stats() const {
  HierarchyLayerStats s;
  s.shared = group_->stats();
  const DmaStats& d = dma().stats(cluster_);
  s.dma_bytes_delivered = d.bytes_delivered - dma_base_.bytes_delivered;
  s.dma_bytes_sent = d.bytes_sent - dma_base_.bytes_sent;
  s.dma_requests = d.requests - dma_base_.requests;
  s.dma_pieces = d.pieces - dma_base_.pieces;
  s.dma_bytes_on_chip = d.bytes_on_chip - dma_base_.bytes_on_chip;
  s.dma_bytes_on_chip_read = d.bytes_on_chip_read - dma_base_.bytes_on_chip_read;
  (dma_.raw_channels > 0 ? s.raw_ifmap_passes : s.im2col_ifmap_passes) = 1;
  for (spad::Partition p : spad::kAllPartitions) {
    const spad::PartitionStats ps = spad_->stats(p) - spad_base_[size_t(p)];
    s.spad_bytes_written += ps.dma_bytes_written;
    s.spad_bytes_read += ps.dma_bytes_read;
    s.spad_conflict_cycles += ps.conflict_cycles;
    s.spad_peak[size_t(p)] = spad_->peak_residency(p);
  }
  return s;
}

namespace {

class HierarchyMemory final : public MemoryBackend {
 public:
  std::unique_ptr<TileSource> make_source(const AcceleratorSpec& a, const FoldPlan& plan, int64_t start, const LayerDmaPlan* program, bool record) const override {
    if (!program) throw std::logic_error("memory: hierarchy needs the pass's DMA program");
    return std::make_unique<HierarchySource>(a, plan, *program, start, record);
  }
};

}  // namespace

CSTSIM_REGISTER(MemoryBackend, HierarchyMemory, "hierarchy")

int HierarchySource::reach_folds() const {
  const int64_t folds = std::max<int64_t>(1, int64_t(plan_.folds.size()));
  const int64_t per_fold = std::max<int64_t>(1, dma_.read_bytes() / folds);
  const int64_t ahead = (group_->dma().in_flight_bytes() + per_fold - 1) / per_fold;
  return int(std::clamp<int64_t>(ahead, 1, std::max(1, dma_.fifo_tiles)));
}

}  // namespace cstsim
