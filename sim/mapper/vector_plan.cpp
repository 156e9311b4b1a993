#include "sim/mapper/vector_plan.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/input_error.h"
#include "sim/mapper/tensor_places.h"

namespace cstsim {
namespace {

// Steps (indices, in order) that run as one kernel.
std::vector<std::vector<size_t>> fuse(const std::vector<VectorStep>& steps, const std::string& fusion) {
  std::vector<std::vector<size_t>> groups;
  for (size_t i = 0; i < steps.size(); ++i) {
    const VectorStep& s = steps[i];
    bool join = false;
    if (!groups.empty() && fusion != "none") {
      const VectorStep& last = steps[groups.back().back()];
      join = s.op == last.op;
      if (!join && fusion == "chain" && s.before_layer == last.before_layer && s.rows == last.rows)
        for (size_t j : groups.back())
          for (const VectorAccess& wr : steps[j].writes)
            for (const VectorAccess& r : s.reads) join = join || wr.tensor == r.tensor;
    }
    if (join)
      groups.back().push_back(i);
    else
      groups.push_back({i});
  }
  return groups;
}

void add_access(std::vector<VectorOperandPlan>& to, const VectorAccess& a) {
  for (VectorOperandPlan& o : to)
    if (o.tensor == a.tensor) {
      o.row_bytes = std::max(o.row_bytes, a.row_bytes);
      o.once_bytes = std::max(o.once_bytes, a.once_bytes);
      return;
    }
  to.push_back({a.tensor, a.row_bytes, a.once_bytes, 0});
}

VectorKernelPlan kernel_of(const Workload& w, const std::vector<size_t>& group,
                           const std::map<std::string, std::set<int64_t>>& readers) {
  const std::vector<VectorStep>& steps = w.vector_steps;
  const VectorStep& first = steps[group.front()];
  VectorKernelPlan k;
  k.rows = first.rows;
  k.line = first.line;
  std::set<std::string> written;  // by the kernel's steps so far
  const std::set<int64_t> members(group.begin(), group.end());
  for (size_t i : group) {
    const VectorStep& s = steps[i];
    if (k.ops.empty() || k.ops.back() != s.op) k.ops.push_back(s.op);
    k.what.push_back(s.what);
    k.reduces = k.reduces || s.reduces;
    k.cols = std::max(k.cols, s.cols);
    for (int c = 0; c < kVectorClasses; ++c) k.ops_per_row[size_t(c)] += s.ops_per_row[size_t(c)];
    for (const VectorAccess& r : s.reads)
      if (!written.count(r.tensor)) add_access(k.reads, r);
    for (const VectorAccess& wr : s.writes) {
      written.insert(wr.tensor);
      auto it = readers.find(wr.tensor);
      const bool outside = it == readers.end() || std::any_of(it->second.begin(), it->second.end(), [&](int64_t r) {
                             return !members.count(r);
                           });
      if (outside) add_access(k.writes, wr);
    }
  }
  if (group.size() == 1)
    k.name = first.name;
  else
    k.name = k.ops.size() == 1 ? k.ops.front() : k.ops.front() + ".." + k.ops.back();
  return k;
}

}  // namespace

std::vector<Placed<VectorKernelPlan>> plan_vector_kernels(const ArchSpec& a, const Workload& w,
                                                          const std::vector<LayerPlan>& layers, uint64_t& next) {
  std::vector<Placed<VectorKernelPlan>> kernels;
  if (a.vector.lanes == 0 || w.vector_steps.empty()) return kernels;
  // Who reads each tensor: steps by index, layers as -1 - index.
  std::map<std::string, std::set<int64_t>> readers;
  for (size_t i = 0; i < w.vector_steps.size(); ++i)
    for (const VectorAccess& r : w.vector_steps[i].reads) readers[r.tensor].insert(int64_t(i));
  for (size_t l = 0; l < w.layers.size(); ++l)
    for (int x = 0; x < 2; ++x) readers[w.layers[l].tensors[size_t(x)]].insert(-1 - int64_t(l));
  for (size_t f = 0; f < w.flash.size(); ++f)  // flash attention reads its q, k and v from HBM
    for (const std::string* t : {&w.flash[f].q, &w.flash[f].k, &w.flash[f].v})
      readers[*t].insert(-1 - int64_t(w.layers.size() + f));

  const int64_t ifmap = a.ifmap_sram_kib * 1024, ofmap = a.ofmap_sram_kib * 1024, filter = a.filter_sram_kib * 1024;
  for (const std::vector<size_t>& group : fuse(w.vector_steps, a.vector.fusion)) {
    VectorKernelPlan k = kernel_of(w, group, readers);
    // Two tiles of row operands in the ifmap partition and two of results in the ofmap partition (a
    // partition of 0 bytes: no bound); at least four tiles where the rows allow, so loads overlap compute.
    auto rows_that_fit = [&](const VectorKernelPlan& v) {
      int64_t fit = v.rows;
      const int64_t in = v.row_read_bytes(), out = v.row_written_bytes();
      if (in > 0 && ifmap > 0) fit = std::min(fit, ifmap / (2 * in));
      if (out > 0 && ofmap > 0) fit = std::min(fit, ofmap / (2 * out));
      return fit;
    };
    // A kernel that reduces nothing along its rows may cut them: m pieces of cols / m (m a power of
    // two dividing every operand's row and every operation count).
    if (rows_that_fit(k) < 1 && !k.reduces) {
      VectorKernelPlan cut = k;
      for (int64_t m = 2; k.cols % m == 0; m *= 2) {
        bool even = true;
        for (int64_t n : k.ops_per_row) even = even && n % m == 0;
        for (const auto* list : {&k.reads, &k.writes})
          for (const VectorOperandPlan& o : *list) even = even && o.row_bytes % m == 0;
        if (!even) break;
        cut = k;
        cut.rows = k.rows * m;
        cut.cols = k.cols / m;
        for (int64_t& n : cut.ops_per_row) n /= m;
        for (auto* list : {&cut.reads, &cut.writes})
          for (VectorOperandPlan& o : *list) o.row_bytes /= m;
        if (rows_that_fit(cut) >= 1) break;
      }
      if (rows_that_fit(cut) >= 1) k = cut;
    }
    const int64_t fit = rows_that_fit(k), in = k.row_read_bytes(), out = k.row_written_bytes();
    if (fit < 1)
      throw InputError(w.source, k.line, k.name,
                       fmt::format("one row reads {} bytes and writes {}: two rows of each do not fit the ifmap ({} B) "
                                   "and ofmap ({} B) partitions{}",
                                   in, out, ifmap, ofmap, k.reduces ? " (it reduces along its rows: a tile holds whole rows)" : ""));
    if (filter > 0 && k.once_bytes() > filter)
      throw InputError(w.source, k.line, k.name,
                       fmt::format("its operands read once ({} bytes) do not fit the filter partition ({} B)",
                                   k.once_bytes(), filter));
    k.tile_rows = std::min(fit, std::max<int64_t>(1, (k.rows + 3) / 4));
    const VectorStep& first = w.vector_steps[group.front()];  // the kernel runs where its first step does
    kernels.push_back({std::move(k), first.before_layer, first.order});
  }
  if (a.memory != MemoryMode::Hierarchy) return kernels;
  // Tensors a layer has a place for keep it; the others go after everything placed so far.
  std::map<std::string, int64_t> extent;
  for (const auto& [k, before, order] : kernels)
    for (const auto* list : {&k.reads, &k.writes})
      for (const VectorOperandPlan& o : *list)
        extent[o.tensor] = std::max(extent[o.tensor], std::max(k.rows * o.row_bytes, o.once_bytes));
  TensorPlaces places(layers, next);
  for (auto& [k, before, order] : kernels)
    for (auto* list : {&k.reads, &k.writes})
      for (VectorOperandPlan& o : *list) o.addr = places.at(o.tensor, extent[o.tensor]);
  return kernels;
}

}  // namespace cstsim
