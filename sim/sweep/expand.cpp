#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/input_error.h"
#include "core/text.h"
#include "sim/config/config_hash.h"
#include "sim/run/run_workloads.h"
#include "sim/sweep/constraint.h"
#include "sim/sweep/spec.h"
#include "sim/sweep/spec_read.h"
#include "sim/workload/batch.h"
#include "sim/workload/workload.h"

// expand(): a read spec (spec_read.h) becomes the sweep's points: workload variants
// (workload-major, then batch), the grid's product filtered by the constraints (last
// grid key fastest), then the explicit points; each point's arch is resolved once,
// so a bad value is reported at its own spec line, and hashed.
namespace cstsim::sweep {
namespace {
namespace fs = std::filesystem;

// canonical_text -> key -> value
std::map<std::string, std::string> canonical_map(const ArchSpec& a) {
  std::map<std::string, std::string> out;
  std::istringstream in(canonical_text(a));
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

// A workload name as a file name: anything but [A-Za-z0-9._-] becomes '_'.
std::string file_safe(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  return out;
}

double estimate_cycles(const ArchSpec& a, const Workload& w) {
  auto cdiv = [](double x, double y) { return std::ceil(x / y); };
  const double R = a.rows, C = a.cols;
  double total = 0;
  for (const Layer& l : w.layers) {
    const GemmDims g{l.M, l.N, l.K};
    const DataflowRoles& r = roles(a.dataflow);  // folds x (stream + fill and drain)
    total += cdiv(double(g[r.Sr]), R) * cdiv(double(g[r.Sc]), C) * (double(g[r.T]) + R + C);
  }
  // Process start-up, parsing and writing the outputs cost about as much as half a million cycles.
  return total + 5e5 + 2e4 * double(w.layers.size());
}

using Values = std::vector<std::pair<std::string, Value>>;

class Expander {
 public:
  explicit Expander(const std::string& spec_path) : S_(spec_path), sp_(read_spec(spec_path)) {
    plan_.name = sp_.name;
    plan_.spec_path = sp_.spec_path;
    plan_.base = sp_.base;
    plan_.bases = sp_.bases;
    plan_.run = sp_.run;
    plan_.param_keys = sp_.param_keys;
  }

  Plan run() {
    for (size_t w = 0; w < sp_.workloads.size(); ++w)
      for (size_t b = 0; b < sp_.batch_values.size(); ++b)
        add_variant(w, sp_.batch_values[b], sp_.batches[b].line);
    check_size();
    for (base_ = 0; base_ < int(plan_.bases.size()); ++base_) {  // every base crossed with the rest
      read_base_values();
      grid_product();
      explicit_points();
    }
    if (plan_.tasks.empty()) throw InputError(S_, 0, "grid", "the sweep has no points");
    return std::move(plan_);
  }

 private:
  // Base values, for constraints on keys a point does not set.
  void read_base_values() {
    try {
      Overrides o;
      for (const auto& [k, v] : sp_.fixed) o.emplace_back(k, v.text);
      base_error_.clear();
      base_values_ = canonical_map(load_arch(plan_.bases[size_t(base_)], o));
    } catch (const InputError& e) {
      base_error_ = e.what();
    }
  }

  // Workload w at `batch` (its file derived unless batch 1); `line` is where the batch was written.
  int add_variant(size_t w, int64_t batch, int line) {
    const Workload& base = sp_.workloads[w];
    WorkloadVariant v;
    v.name = base.name;
    v.source = base.source;
    v.batch = batch;
    if (batch == 1) {
      v.file = v.source;
      workloads_.push_back(base);
    } else {
      // Names that differ only in characters file_safe drops ("a b", "a_b") must not share a file.
      v.file = fmt::format("workloads/{}-b{}.yaml", file_safe(v.name), v.batch);
      for (int k = 2; std::any_of(plan_.variants.begin(), plan_.variants.end(),
                                  [&](const WorkloadVariant& o) { return o.file == v.file; });
           ++k)
        v.file = fmt::format("workloads/{}.{}-b{}.yaml", file_safe(v.name), k, v.batch);
      try {
        BatchedWorkload b = batched_workload(base, batch, fmt::format("{}-b{}", base.name, batch), v.file);
        v.derived_text = std::move(b.yaml);
        workloads_.push_back(std::move(b.workload));
      } catch (const InputError& e) {
        // The workload's file as the spec names it (relative to the spec), not the absolute path.
        const std::string file = fs::path(e.file()).lexically_relative(fs::path(sp_.spec_path).parent_path()).string();
        throw InputError(S_, line, "batch",
                         fmt::format("workload {} has no batch {}: {}", base.name, batch,
                                     InputError(file.empty() || file.rfind("..", 0) == 0 ? e.file() : file, e.line(),
                                                e.key(), e.message())
                                         .what()));
      }
    }
    plan_.variants.push_back(std::move(v));
    return int(plan_.variants.size()) - 1;
  }

  int variant_of(size_t w, int64_t batch) const {
    for (size_t i = 0; i < plan_.variants.size(); ++i)
      if (plan_.variants[i].name == sp_.workloads[w].name && plan_.variants[i].source == sp_.workloads[w].source &&
          plan_.variants[i].batch == batch)
        return int(i);
    return -1;
  }

  // The grid's size, before spending time on it.
  void check_size() {
    for (const Axis& a : sp_.axes) {
      if (per_variant_ > kMaxPoints / int64_t(a.values.size()))
        throw InputError(S_, a.line, a.key, fmt::format("the grid has more than {} points", kMaxPoints));
      per_variant_ *= int64_t(a.values.size());
    }
    if (per_variant_ * int64_t(plan_.variants.size()) * int64_t(plan_.bases.size()) > kMaxPoints)
      throw InputError(S_, sp_.line_of("grid"), "grid", fmt::format("the sweep has more than {} points", kMaxPoints));
  }

  // The product: workloads x batch x grid (last grid key fastest), filtered by the constraints.
  void grid_product() {
    const auto& axes = sp_.axes;
    for (size_t w = 0; w < sp_.workloads.size(); ++w)
      for (const int64_t batch : sp_.batch_values) {
        const int variant = variant_of(w, batch);
        std::vector<size_t> odo(axes.size(), 0);
        for (int64_t n = 0; n < per_variant_; ++n) {
          Values values;
          for (size_t a = 0; a < axes.size(); ++a) values.push_back({axes[a].key, axes[a].values[odo[a]]});
          for (size_t a = axes.size(); a-- > 0;) {
            if (++odo[a] < axes[a].values.size()) break;
            odo[a] = 0;
          }
          ++plan_.grid_points;
          if (!satisfies_constraints(w, batch, values)) {
            ++plan_.rejected;
            continue;
          }
          add_point(variant, values);
        }
      }
    if (plan_.grid_points > 0 && plan_.rejected == plan_.grid_points && sp_.points.empty())
      throw InputError(S_, sp_.line_of("constraints"), "constraints",
                       fmt::format("no point satisfies the constraints (all {} grid points rejected): the product is "
                                   "empty",
                                   plan_.grid_points));
  }

  bool satisfies_constraints(size_t w, int64_t batch, const Values& values) const {
    auto lookup = [&](const std::string& k) -> std::string {
      if (k == "workload") return sp_.workloads[w].name;
      if (k == "batch") return std::to_string(batch);
      for (const auto& [vk, vv] : values)
        if (vk == k) return vv.text;
      for (const auto& [fk, fv] : sp_.fixed)
        if (fk == k) return fv.text;
      if (base_values_.count(k)) return base_values_.at(k);
      throw InputError(S_, sp_.line_of("constraints"), "constraints",
                       fmt::format("{} has no value without the grid ({})", k, base_error_));
    };
    for (const Constraint& c : sp_.constraints)
      if (!c.holds(lookup)) return false;
    return true;
  }

  // Explicit points, each crossed with the workloads and batch sizes it does not name.
  void explicit_points() {
    for (const ExplicitPoint& p : sp_.points)
      for (size_t w = 0; w < sp_.workloads.size(); ++w) {
        if (p.workload && p.workload->text != sp_.workloads[w].name) continue;
        std::vector<int64_t> batches = sp_.batch_values;
        if (p.batch) batches = {*text::parse_int(p.batch->text)};
        for (const int64_t batch : batches) {
          int variant = variant_of(w, batch);
          if (variant < 0) variant = add_variant(w, batch, p.batch->line);  // a batch size only this point uses
          add_point(variant, p.values);
        }
      }
  }

  // One point: resolve the arch (errors point at the spec line of the offending value), hash it.
  void add_point(int variant, const Values& values) {
    Overrides o;
    for (const auto& [k, v] : sp_.fixed) o.emplace_back(k, v.text);
    for (const auto& [k, v] : values) o.emplace_back(k, v.text);
    ArchSpec arch;
    try {
      arch = load_arch(plan_.bases[size_t(base_)], o);
    } catch (const InputError& e) {
      if (e.file() != "--set") throw;
      int line = 0;
      for (const Values* list : {&values, static_cast<const Values*>(&sp_.fixed)})
        for (const auto& [k, v] : *list)
          if (k == e.key() && line == 0) line = v.line;
      throw InputError(S_, line, e.key(), e.message());
    }
    const auto canon = canonical_map(arch);
    Task t;
    t.variant = variant;
    t.base = base_;
    t.overrides = o;
    for (const std::string& k : plan_.param_keys) {
      std::string value;
      if (k == "base" && plan_.bases.size() > 1) {
        value = fs::path(plan_.bases[size_t(base_)]).stem().string();
      } else if (canon.count(k)) {
        value = canon.at(k);
      } else {
        for (const auto& [ok, ov] : o)
          if (ok == k) value = ov;
      }
      t.params.push_back(value);
    }
    if (!seen_points_.insert({variant, t.params}).second) {
      ++plan_.duplicates;
      return;
    }
    // What the point runs, made and hashed as `run` makes and hashes it.
    const std::vector<Workload>& shares = run_workloads_of(variant, arch, values);
    t.hash = run_config_hash(arch, shares, "timing", 1);
    t.cost = estimate_cycles(arch, shares.front());
    t.index = int(plan_.tasks.size());
    plan_.tasks.push_back(std::move(t));
  }

  // The chips' workloads of a variant on `arch` (run_workloads), made once per split and value width.
  const std::vector<Workload>& run_workloads_of(int variant, const ArchSpec& arch, const Values& values) {
    const auto key = std::make_tuple(variant, arch.tensor_parallel, arch.data_parallel, arch.pipeline_parallel,
                                     arch.micro_batches, arch.precision.value_bits());
    if (auto it = shares_.find(key); it != shares_.end()) return it->second;
    const WorkloadVariant& v = plan_.variants[size_t(variant)];
    try {
      return shares_[key] = run_workloads(arch, workloads_[size_t(variant)], plan_.run.sparsity, plan_.run.train);
    } catch (const InputError& e) {  // a split or training step this point cannot make: at the point's line
      int line = values.empty() ? sp_.line_of("workloads") : values.front().second.line;
      std::string point;
      for (const auto& [k, val] : values) point += fmt::format("{}{}={}", point.empty() ? "" : " ", k, val.text);
      throw InputError(S_, line, "workloads",
                       fmt::format("{} at batch {}{}{} cannot run: {}", v.name, v.batch, point.empty() ? "" : " with ",
                                   point, e.what()));
    }
  }

  const std::string S_;
  const SpecFile sp_;
  Plan plan_;
  std::map<std::string, std::string> base_values_;
  std::string base_error_;
  int base_ = 0;  // the base (Plan::bases) the points being added start from
  std::vector<Workload> workloads_;  // per variant
  int64_t per_variant_ = 1;
  std::set<std::pair<int, std::vector<std::string>>> seen_points_;
  std::map<std::tuple<int, int, int, int, int, int>, std::vector<Workload>> shares_;
};

}  // namespace

Plan expand(const std::string& spec_path) { return Expander(spec_path).run(); }

}  // namespace cstsim::sweep
