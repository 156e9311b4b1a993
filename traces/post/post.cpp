#include "traces/post/post.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "core/clock.h"
#include "core/input_error.h"
#include "core/input_file.h"
#include "core/num_type.h"
#include "traces/post/energy_table.h"
#include "traces/post/integrate.h"
#include "traces/post/normalization.h"
#include "core/units.h"
#include "traces/reader.h"

namespace cstsim::post {
namespace fs = std::filesystem;
using nlohmann::ordered_json;
using namespace units;

namespace {

constexpr double kBoltzmann = 1.380649e-23;  // J/K, exact (SI 2019)

struct Machine {  // what the report needs from the run's arch
  int rows = 0, cols = 0;
  double clock_hz = 0;
  int64_t operand_bytes = 1, accumulator_bytes = 4;
  OpsPerSecond peak_ops;
  BytesPerSecond dram_bandwidth;  // the memory channel, when there is one (every chip's)
  // memory: hierarchy: every HBM byte enters or leaves a cluster through its mesh port, one flit
  // a NoC cycle each way: one direction of all clusters' ports (0: no mesh).
  BytesPerSecond port_bandwidth;
  int chips = 1;                  // identical accelerators (arch chips)
  double edge_row_bytes = 1, edge_col_bytes = 1;  // a value on a row (column) edge link, as stored
  int arrays = 1;
  double vector_port_bytes = 0;  // the vector units' SRAM ports, bytes a cycle (all chips')
  // The array's edge links at full width, the partial-sum reads, and the vector units' ports.
  BytesPerSecond sram_bandwidth() const {
    return {((rows * edge_row_bytes + cols * (edge_col_bytes + 2.0 * accumulator_bytes)) * arrays + vector_port_bytes) *
            clock_hz};
  }
};

// An operator graph's tensors may be stored wider than the arch's types (a bf16 graph on int8 PEs):
// those layers' edge links carry their own widths (the links' "link_cycle:<n>;<layer>=<n>" rates),
// and the SRAM delivers them at that width. The SRAM level's bandwidth is then the widest the run
// used, so that no layer's bytes can beat it.
void widen_edges_to_the_trace(Machine& m, const std::vector<trace::Resource>& resources) {
  double row = 1, col = 1;  // the widest rate of a row (column) link over its base rate
  for (const trace::Resource& r : resources) {
    const bool rows = r.name.size() > 13 && r.name.compare(r.name.size() - 13, 13, ".link.in_rows") == 0;
    const bool cols = r.name.size() > 13 && r.name.compare(r.name.size() - 13, 13, ".link.in_cols") == 0;
    if ((!rows && !cols) || r.carries.rfind("link_cycle:", 0) != 0) continue;
    const std::string rates = r.carries.substr(11);
    const double base = std::strtod(rates.c_str(), nullptr);
    if (!(base > 0)) continue;
    double widest = base;
    for (size_t at = rates.find('='); at != std::string::npos; at = rates.find('=', at + 1))
      widest = std::max(widest, std::strtod(rates.c_str() + at + 1, nullptr));
    (rows ? row : col) = std::max(rows ? row : col, widest / base);
  }
  m.edge_row_bytes *= row, m.edge_col_bytes *= col;
}

// The cycles the run's scopes take with ideal memory (summary.json's ideal_cycles), where its
// memory can stall the array: the roofline's `array` ceiling. Empty under memory: ideal.
struct IdealCycles {
  int64_t total = 0;
  std::unordered_map<std::string, int64_t> by_layer;
  int64_t of(const std::string& layer) const {  // "": the run's total; 0: not booked
    if (layer.empty()) return total;
    const auto it = by_layer.find(layer);
    return it == by_layer.end() ? 0 : it->second;
  }
};

IdealCycles read_ideal_cycles(const fs::path& summary_path, const nlohmann::json& summary) {
  IdealCycles out;
  try {
    if (summary.at("arch").value("memory", "ideal") == "ideal") return out;
    out.total = summary.at("total").value("ideal_cycles", int64_t(0));
    for (const auto& l : summary.value("layers", nlohmann::json::array()))
      out.by_layer[l.at("name").get<std::string>()] = l.value("ideal_cycles", int64_t(0));
  } catch (const nlohmann::json::exception& e) {
    throw InputError(summary_path.string(), 0, "ideal_cycles", std::string("missing or malformed: ") + e.what());
  }
  return out;
}

Machine read_machine(const fs::path& summary_path, const nlohmann::json& summary) {
  try {
    const auto& a = summary.at("arch");
    Machine m;
    m.rows = a.at("rows").get<int>();
    m.cols = a.at("cols").get<int>();
    m.clock_hz = a.at("clock_hz").get<double>();
    if (const std::string why = clock_hz_problem(m.clock_hz); !why.empty())
      throw InputError(summary_path.string(), 0, "arch.clock_hz", why);
    if (m.rows < 1 || m.cols < 1)
      throw InputError(summary_path.string(), 0, "arch", fmt::format("a {}x{} array", m.rows, m.cols));
    const int pack = a.value("macs_per_pe_cycle", 1);  // operands per PE word (core/precision.h)
    m.operand_bytes = (a.at("operand_bits").get<int>() * pack + 7) / 8;
    m.accumulator_bytes = (a.at("accumulator_bits").get<int>() + 7) / 8;
    m.chips = a.value("chips", 1);
    const int arrays = a.value("clusters", 1) * m.chips;  // identical arrays working in parallel
    m.peak_ops = {2.0 * m.rows * m.cols * pack * m.clock_hz * arrays};
    // Edge links at full width plus the accumulators' partial-sum reads (one per output written).
    // The links carry A and B at their stored widths (precision.activation / .weight): rows the
    // stream (A; B under IS), columns the other.
    auto stored_bytes = [&](const char* key) {
      const auto t = a.contains(key) ? num_type_named(a.at(key).get<std::string>()) : std::nullopt;
      return t ? bits_of(*t) * pack / 8.0 : double(m.operand_bytes);
    };
    const bool is = a.value("dataflow", "ws") == "is";
    const double a_bytes = stored_bytes("activation"), b_bytes = stored_bytes("weight");
    const double row = is ? b_bytes : a_bytes, col = is ? a_bytes : b_bytes;
    m.edge_row_bytes = row, m.edge_col_bytes = col, m.arrays = arrays;
    // A vector unit (one a chip) reads and writes the SRAM through its own ports beside the array's
    // edges: the SRAM level delivers to both (a graph's kernels between layers are in its bytes).
    if (summary.contains("vector") && summary["vector"].contains("port_bytes")) {
      m.vector_port_bytes = summary["vector"]["port_bytes"].get<double>() * m.chips;
      if (!(m.vector_port_bytes >= 0) || m.vector_port_bytes > 1e12)
        throw InputError(summary_path.string(), 0, "vector.port_bytes", "must be a number of bytes from 0 to 1e12");
    }
    if (a.value("memory", "ideal") == "channel") m.dram_bandwidth = {a.at("channel").at("bandwidth_bytes_per_s").get<double>()};
    if (a.contains("hbm")) m.dram_bandwidth = {a.at("hbm").at("peak_bytes_per_s").get<double>() * m.chips};
    if (a.contains("noc") && a["noc"].contains("flit_bytes")) {
      const double flit = a["noc"].at("flit_bytes").get<double>(), hz = a["noc"].at("clock_hz").get<double>();
      if (!(flit > 0) || !(hz > 0)) throw InputError(summary_path.string(), 0, "arch.noc", "flit_bytes and clock_hz must be positive");
      m.port_bandwidth = {flit * hz * arrays};
    }
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(summary_path.string(), 0, "arch", std::string("missing or malformed: ") + e.what());
  }
}

bool starts_with(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

// Action totals of one scope (the run or a layer).
using Counts = std::map<std::string, long double>;

long double sum_prefix(const Counts& c, const std::string& prefix) {
  long double s = 0;
  for (const auto& [k, v] : c)
    if (starts_with(k, prefix)) s += v;
  return s;
}

long double sum_if(const Counts& c, bool (*pred)(const std::string&)) {
  long double s = 0;
  for (const auto& [k, v] : c)
    if (pred(k)) s += v;
  return s;
}

// Zero gating: "mac.<type>.gated" counts lanes among "mac.<type>.executed" whose activation was
// zero; they are priced at their own row and the rest of executed at the MAC's.
bool is_gated(const std::string& a) { return starts_with(a, "mac.") && a.size() > 6 && a.compare(a.size() - 6, 6, ".gated") == 0; }
bool is_executed_mac(const std::string& a) {
  return starts_with(a, "mac.") && a.size() > 9 && a.compare(a.size() - 9, 9, ".executed") == 0;
}
std::string executed_of(const std::string& gated) { return gated.substr(0, gated.size() - 6) + ".executed"; }

Counts priced(const Counts& c) {
  Counts p = c;
  for (const auto& [k, v] : c)
    if (is_gated(k)) p[executed_of(k)] -= v;
  return p;
}

// A multi-chip run's counters carry their chip ("chip3.hbm.read.ifmap", TraceSink::set_scope): the
// report sums them over the chips by their name without it, and attributes link bytes by full name.
std::string unscoped(const std::string& a) {
  if (a.compare(0, 4, "chip") != 0) return a;
  size_t i = 4;
  while (i < a.size() && std::isdigit(static_cast<unsigned char>(a[i]))) ++i;
  return i > 4 && i < a.size() && a[i] == '.' ? a.substr(i + 1) : a;
}

// The action names of actions.csv, numbered as first seen, with the number of each one's name
// without its chip: per-layer counts, held for every layer until the pass ends, keep numbers.
class ActionNames {
 public:
  uint32_t id(const std::string& name) {
    const auto [it, fresh] = ids_.try_emplace(name, uint32_t(names_.size()));
    if (fresh) names_.push_back(name), unscoped_.push_back(kUnknown);
    return it->second;
  }
  uint32_t unscoped_id(uint32_t id) {
    if (unscoped_[id] == kUnknown) {
      const uint32_t u = this->id(unscoped(names_[id]));
      unscoped_[id] = u;
    }
    return unscoped_[id];
  }
  const std::string& name(uint32_t id) const { return names_[id]; }

 private:
  static constexpr uint32_t kUnknown = ~uint32_t(0);
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> names_;
  std::vector<uint32_t> unscoped_;
};

// One layer's action counts by number (a handful of actions: a short list, not a map of strings).
struct PackedCounts {
  std::vector<std::pair<uint32_t, long double>> counts;
  void add(uint32_t id, long double n) {
    for (auto& [k, v] : counts)
      if (k == id) {
        v += n;
        return;
      }
    counts.emplace_back(id, n);
  }
  Counts unpacked(const ActionNames& names) const {
    Counts c;
    for (const auto& [k, v] : counts) c[names.name(k)] += v;
    return c;
  }
};

bool is_memory_traffic(const std::string& a) {
  return starts_with(a, "sram.") || starts_with(a, "hbm.") || starts_with(a, "host.");
}
bool is_write(const std::string& a) { return a.find(".write") != std::string::npos; }

class Reporter {
 public:
  Reporter(const PostOptions& o, const nlohmann::json& summary, const Machine& m, IdealCycles ideal,
           trace::TraceReader& reader, const EnergyTable& energy)
      : opt_(o), summary_(summary), m_(m), ideal_(std::move(ideal)), reader_(reader), energy_(energy),
        period_(1.0 / reader.header().clock_hz) {}

  PostOutputs build() {
    const Integrals in = integrate(reader_);
    integrals_ = &in;
    const int64_t trace_window = int64_t(reader_.header().action_window);
    const int64_t window = opt_.window > 0 ? opt_.window : std::max<int64_t>(trace_window, 1);
    window_ = window;
    if (trace_window > 0 && window % trace_window != 0)
      throw InputError("--window", 0, "", fmt::format("must be a multiple of the trace's window ({} cycles)", trace_window));

    // One streaming pass over actions.csv: totals, per-layer totals, and per-window
    // peaks and energy (rows of one window are consecutive: the file is sorted by window).
    PostOutputs out;
    out.energy_windows = std::make_shared<io::OutFile>(opt_.run_dir / "energy_windows.csv");
    io::OutFile& ew = *out.energy_windows;
    ew.put("layer,window_start,window_end,time_start_s,time_end_s,e_marg_J,e_base_J,e_gross_J\n");
    Counts total, current, total_scoped;
    ActionNames names;
    std::map<int, PackedCounts> per_layer, per_layer_scoped;
    std::map<int, BytesPerSecond> b_peak_layer;
    BytesPerSecond b_peak_total{0};
    std::pair<int, int64_t> key{0, -1};
    struct Window {
      int layer;
      int64_t start, end;
      double marg, base;
      Counts executed;  // mac.<type>.executed
    };
    std::vector<Window> pending;  // the current layer's windows
    auto close_window = [&]() {
      if (key.second < 0) return;
      const auto& ls = reader_.layers();
      // The reader holds the layers in increasing index: a binary search, not a scan per window.
      auto it = std::lower_bound(ls.begin(), ls.end(), key.first,
                                 [](const trace::LayerRow& l, int index) { return l.index < index; });
      const bool found = it != ls.end() && it->index == key.first;
      const int64_t lo = found ? it->start_cycle : 0;
      const int64_t hi = found ? it->end_cycle + 1 : int64_t(reader_.header().end_cycle);
      const int64_t start = std::max(lo, key.second * window), end = std::min(hi, (key.second + 1) * window);
      const Seconds d{(end - start) * period_};
      if (d.value > 0) {
        const BytesPerSecond bw = Bytes{double(sum_if(current, is_memory_traffic))} / d;
        b_peak_total = std::max(b_peak_total, bw);
        b_peak_layer[key.first] = std::max(b_peak_layer[key.first], bw);
      }
      // Gated lanes are booked when their pass starts; over time they go with the layer's executed
      // lanes (a density says how many activations are zero, not when they pass): the window's
      // MACs are priced once the layer's totals are known (flush_layer).
      Counts ungated;
      for (const auto& [k, v] : current)
        if (!is_gated(k)) ungated[k] = v;
      Window w{key.first, start, end, marginal(ungated).value, base_energy(d).value + background(current).value, {}};
      for (const auto& [k, v] : current)
        if (is_executed_mac(k)) w.executed[k] = v;
      pending.push_back(std::move(w));
      current.clear();
    };
    auto flush_layer = [&]() {
      for (Window& w : pending) {
        const Counts layer = per_layer[w.layer].unpacked(names);
        for (const auto& [exec, n] : w.executed) {
          const std::string gated = exec.substr(0, exec.size() - 9) + ".gated";
          const auto g = layer.find(gated);
          if (g == layer.end() || g->second == 0) continue;
          const long double share = n * g->second / layer.at(exec);
          w.marg -= double(energy_.find(exec)->joules(double(share), period_) -
                           gated_row(gated).joules(double(share), period_));
        }
        ew.print("{},{},{},{:.12g},{:.12g},{:.12g},{:.12g},{:.12g}\n", w.layer, w.start, w.end, w.start * period_,
                 w.end * period_, w.marg, w.base, w.marg + w.base);
      }
      pending.clear();
    };
    reader_.for_each_action([&](const trace::ActionRow& row) {
      const uint32_t scoped_id = names.id(row.action), id = names.unscoped_id(scoped_id);
      const std::string& action = names.name(id);
      total_scoped[row.action] += row.count;
      per_layer_scoped[row.layer].add(scoped_id, row.count);
      total[action] += row.count;
      per_layer[row.layer].add(id, row.count);
      const std::pair<int, int64_t> k{row.layer, row.window_start / window};
      if (k != key) {
        close_window();
        if (k.first != key.first) flush_layer();
        key = k;
      }
      current[action] += row.count;
    });
    close_window();
    flush_layer();

    ordered_json& r = out.report;
    r["version"] = summary_.value("version", "");
    r["config_hash"] = summary_.value("config_hash", "");
    r["boundary"] = boundary();
    r["boundary_note"] = m_.chips > 1
                             ? fmt::format("{} accelerators (each its arrays, registers, SRAM, HBM and the links between "
                                           "them) and the chip-to-chip interconnect; no host, no I/O", m_.chips)
                             : "the accelerator: array, its registers, its SRAM and the links between them; no host, no I/O";
    r["grade"] = "simulation";
    r["grade_note"] = fmt::format("cycle-level trace ({} mode); the analytical ledger would be a CST-D spec estimate",
                                  summary_.value("mode", "timing"));
    r["clock_hz"] = reader_.header().clock_hz;
    const bool dram = m_.dram_bandwidth.value > 0;
    r["machine"] = {{"peak_ops_per_s", to_json(m_.peak_ops)},
                    {"bandwidth", to_json(dram ? m_.dram_bandwidth : m_.sram_bandwidth())},
                    {"bandwidth_level", dram ? "hbm" : "sram"},
                    {"bandwidth_note", dram ? "the memory channel (memory: channel)"
                                            : std::string("all array edge links at full width and the partial-sum reads: R x operand + C x (operand + 2 x accumulator) bytes per cycle") +
                                                  (m_.vector_port_bytes > 0 ? ", and the vector unit's SRAM ports" : "")}};
    if (dram) r["machine"]["sram_bandwidth"] = to_json(m_.sram_bandwidth());
    r["energy_table"] = {{"name", energy_.name}, {"temperature_K", energy_.temperature_k}};
    r["windows"] = {{"cycles", window}, {"seconds", window * period_}};
    r["total"] = scope(in.total, total, total_scoped, b_peak_total, "total", -1);
    if (opt_.check_scope) opt_.check_scope(r["total"], "the run's total");
    r["layers"] = io::JsonArraySpool::placeholder();
    out.layers = std::make_shared<io::JsonArraySpool>(opt_.run_dir);
    for (size_t i = 0; i < in.layers.size(); ++i) {  // one entry in memory at a time
      const trace::LayerRow& lr = reader_.layers()[i];
      ordered_json head{{"name", lr.name}, {"start_cycle", lr.start_cycle}, {"end_cycle", lr.end_cycle}};
      head.update(scope(in.layers[i], per_layer[lr.index].unpacked(names), per_layer_scoped[lr.index].unpacked(names),
                        b_peak_layer[lr.index], lr.name, int(i)));
      if (opt_.check_scope) opt_.check_scope(head, fmt::format("layer {} ({})", i, lr.name));
      out.layer_energy.push_back(head["energy"]["E_attrib"]["value"].get<double>());
      out.layers->push(head);
      per_layer.erase(lr.index);
      per_layer_scoped.erase(lr.index);
    }
    if (!opt_.normalization.empty()) r["V_CST_star"] = scalar(load_normalization(opt_.normalization), in.total);
    out.text = text(r);
    return out;
  }

 private:
  // Dynamic energy: the pJ rows. Rows in W price a state held over time (DRAM background)
  // and belong to the base energy with static power (background()).
  Joules marginal(const Counts& c) const {
    Joules e{0};
    for (const auto& [action, n] : c) {
      const ActionEnergy* row = energy_.find(action);
      if (row) {
        if (row->watts < 0) e += Joules{row->joules(double(n), period_)};
      } else if (!EnergyTable::is_nominal(action)) {
        throw InputError(energy_.path, 0, action, "the energy table has no row for this action");
      }
    }
    return e;
  }

  const ActionEnergy& gated_row(const std::string& gated) const {
    const ActionEnergy* row = energy_.find(gated);
    if (!row) throw InputError(energy_.path, 0, gated, "the energy table has no row for this action");
    return *row;
  }

  Joules background(const Counts& c) const {
    Joules e{0};
    for (const auto& [action, n] : c)
      if (const ActionEnergy* row = energy_.find(action); row && row->watts >= 0)
        e += Joules{row->joules(double(n), period_)};
    return e;
  }

  Joules base_energy(Seconds t) const {
    Watts p{0};
    for (const StaticPower& s : energy_.static_power) p += Watts{s.watts};
    return p * t;
  }

  // What binds, by the ceilings' times: "compute" when the peak MAC rate outlasts every memory
  // level (the array's schedule is then its compute roof), else "array" when the array's own
  // schedule does (its edges load operands slower than the memory brings them), else "memory".
  template <class Ceiling>
  static const char* bound_by(Seconds t_compute, const std::vector<Ceiling>& ceilings) {
    double memory = 0, array = 0;
    for (const Ceiling& x : ceilings) {
      double& longest = std::string(x.level) == "array" ? array : memory;
      longest = std::max(longest, x.time().value);
    }
    if (t_compute.value >= memory) return "compute";
    return array > memory ? "array" : "memory";
  }

  // `layer`: the scope's position in the trace's layer list; -1: the run.
  // `c`: the scope's counters summed over chips; `scoped`: by their full names (link bytes).
  ordered_json scope(const ScopeTotals& s, const Counts& c, const Counts& scoped, BytesPerSecond b_peak,
                     const std::string& name, int layer) {
    const auto& res = reader_.resources();
    const Seconds T{s.cycles() * period_};
    auto integral = [&](size_t i) { return double(s.resources[i].integral) * period_; };

    // V_CST, one component per class, units kept.
    PESeconds v_pe{0};
    DeviceSeconds v_dev{0};
    LaneSeconds v_lane{0};
    bool lanes = false;
    std::map<std::string, ByteSeconds> v_m;
    LinkSeconds v_n{0};
    ByteSeconds v_s{0};
    for (size_t i = 0; i < res.size(); ++i) {
      switch (res[i].cls) {
        case trace::ResourceClass::Compute:
          if (res[i].unit == "PE") v_pe += PESeconds{integral(i)};
          else if (res[i].unit == "device") v_dev += DeviceSeconds{integral(i)};
          else if (res[i].unit == "lane") v_lane += LaneSeconds{integral(i)}, lanes = true;
          break;
        case trace::ResourceClass::Memory: v_m[res[i].level] += ByteSeconds{integral(i)}; break;
        case trace::ResourceClass::Network: v_n += LinkSeconds{integral(i)}; break;
        case trace::ResourceClass::Storage: v_s += ByteSeconds{integral(i)}; break;
      }
    }
    ordered_json vm = ordered_json::object();
    for (const auto& [level, v] : v_m) vm[level] = to_json(v);
    ordered_json v_cst = {{"V_C", {{"PE_s", to_json(v_pe)}, {"device_s", to_json(v_dev)}}},
                          {"V_M", vm},
                          {"V_N", to_json(v_n)},
                          {"V_S", to_json(v_s)}};
    if (lanes) v_cst["V_C"]["lane_s"] = to_json(v_lane);  // a vector unit ran

    // Counters.
    const long double macs_exec = sum_if(c, is_executed_mac);
    const Ops ops{double(2 * macs_exec)};
    const Bytes reg{double(sum_prefix(c, "reg."))}, sram{double(sum_prefix(c, "sram."))},
        hbm{double(sum_prefix(c, "hbm."))}, host{double(sum_prefix(c, "host."))};
    const Bytes b_n{double(sum_prefix(c, "link."))};
    const Bytes b_i{double(sum_prefix(c, "io."))};
    ordered_json ops_by_precision = ordered_json::object();
    for (const auto& [k, v] : c) {
      if (!starts_with(k, "mac.")) continue;
      const size_t dot = k.find('.', 4);
      ops_by_precision[k.substr(4, dot - 4)][k.substr(dot + 1)] = to_json(Macs{double(v)});
    }

    // Θ_CST.
    ordered_json m_levels = ordered_json::object();
    for (const auto& [level, v] : s.peak_memory_by_level) m_levels[level] = to_json(Bytes{double(v)});
    ordered_json edges = ordered_json::array();
    std::map<std::string, long double> share_busy;  // per share: its resources' busy time together
    for (size_t i = 0; i < res.size(); ++i)
      if (starts_with(res[i].carries, "share:")) share_busy[res[i].carries] += s.resources[i].integral;
    for (size_t i = 0; i < res.size(); ++i) {
      if (res[i].cls != trace::ResourceClass::Network) continue;
      const Edge e = edge_of(i, s.resources[i], scoped, share_busy, layer);
      edges.push_back({{"src", e.src},
                       {"dst", e.dst},
                       {"links", res[i].name},
                       {"bytes", to_json(e.bytes)},
                       {"busy", to_json(Seconds{s.resources[i].busy_cycles * period_})}});
    }
    const int64_t layers = int64_t(reader_.layers().size());
    ordered_json theta = {
        {"T_wall", to_json(T)},
        {"T_serial", to_json(Seconds{s.serial_cycles * period_})},
        {"T_serial_definition", "time with exactly one busy compute device, D(t) = 1"},
        {"P_parallel", {{"devices", to_json(Devices{T.value > 0 ? v_dev.value / T.value : 0})},
                        {"PEs", to_json(PEs{T.value > 0 ? v_pe.value / T.value : 0})}}},
        {"D_peak", to_json(Devices{double(s.peak_devices)})},
        {"M_peak", {{"total", to_json(Bytes{double(s.peak_memory)})}, {"by_level", m_levels}}},
        {"B_peak", to_json(b_peak)},
        {"B_peak_definition", fmt::format("max over {}-cycle windows (cut at layer boundaries) of memory-traffic bytes "
                                          "(sram.*, hbm.*, host.*) / window duration",
                                          window_)},
        {"Gamma_comm", {{"edges", edges}, {"sync_count", name == "total" ? std::max<int64_t>(0, layers - 1) : 0},
                        {"sync_definition", "barriers between consecutive layers"}}}};

    ordered_json h_peak = {{"D_peak", to_json(Devices{double(s.peak_devices)})},
                           {"M_peak", to_json(Bytes{double(s.peak_memory)})},
                           {"N_peak", to_json(Links{double(s.peak_links)})},
                           {"P_peak_actual", to_json(OpsPerSecond{2.0 * s.peak_pes * m_.clock_hz})}};

    // Energy vector.
    const Counts c_priced = priced(c);
    const Joules e_marg = marginal(c_priced);
    const Joules e_base = base_energy(T) + background(c);
    const Joules e_gross = e_base + e_marg;
    const double bits_erased = 8.0 * double(sum_if(c, is_write));
    const Joules e_thermo{kBoltzmann * energy_.temperature_k * std::log(2.0) * bits_erased};
    ordered_json by_action = ordered_json::object(), base_by_action = ordered_json::object();
    for (const auto& [action, n] : c_priced)
      if (const ActionEnergy* row = energy_.find(action))
        (row->watts >= 0 ? base_by_action : by_action)[action] = to_json(Joules{row->joules(double(n), period_)});
    ordered_json energy = {{"E_gross", to_json(e_gross)},
                           {"E_base", to_json(e_base)},
                           {"E_marg", to_json(e_marg)},
                           {"E_attrib", to_json(e_gross)},
                           {"E_thermo_min", to_json(e_thermo)},
                           {"attribution_rule", "exclusive: the run owns the accelerator for its duration, so all of "
                                                "its static and dynamic energy is attributed to it (a layer gets its "
                                                "own marginal energy plus static power over its own time)"},
                           {"bits_erased", bits_erased},
                           {"erasure_definition", "every bit written into storage (registers, SRAM, DRAM) overwrites "
                                                  "one bit: 8 x bytes of all *.write* actions"},
                           {"E_marg_by_action", by_action},
                           {"E_base_by_action", base_by_action}};

    // Roofline against the outermost memory level that saw traffic, under memory: hierarchy the
    // clusters' mesh ports that traffic crosses (reads in, writes out, each one flit a NoC cycle),
    // and with a memory that can stall the array its own schedule: the cycles the same plan takes
    // with ideal memory (operands loaded through the array's edges, fills and drains; the run's
    // ideal_cycles), which no memory can beat. The tightest ceiling is the level that binds.
    const bool use_hbm = hbm.value > 0;
    if (use_hbm && m_.dram_bandwidth.value <= 0)
      throw std::logic_error("DRAM traffic in the trace but no DRAM bandwidth in the arch");
    struct Ceiling {
      const char* level;
      Bytes bytes;
      BytesPerSecond bandwidth;
      Seconds time() const { return bytes / bandwidth; }
    };
    std::vector<Ceiling> ceilings{{use_hbm ? "hbm" : "sram", use_hbm ? hbm : sram,
                                   use_hbm ? m_.dram_bandwidth : m_.sram_bandwidth()}};
    if (use_hbm && m_.port_bandwidth.value > 0) {
      const Bytes in{double(sum_prefix(c, "hbm.read."))}, out{double(sum_prefix(c, "hbm.write."))};
      ceilings.push_back({"noc_port", in.value >= out.value ? in : out, m_.port_bandwidth});
    }
    if (const int64_t ideal = ideal_.of(layer < 0 ? "" : name); use_hbm && ideal > 0)
      ceilings.push_back({"array", ceilings.front().bytes, ceilings.front().bytes / Seconds{double(ideal) * period_}});
    const Ceiling& binding = *std::max_element(ceilings.begin(), ceilings.end(), [](const Ceiling& x, const Ceiling& y) {
      return x.time().value < y.time().value;
    });
    // I_A stays against the outermost level's bytes; the bandwidth that goes with it is the one
    // the binding ceiling allows those bytes (the stack's own, or less through the ports).
    const Bytes b_level = ceilings.front().bytes;
    const Seconds t_compute = ops / m_.peak_ops, t_memory = binding.time();
    const BytesPerSecond bw = t_memory.value > 0 ? b_level / t_memory : ceilings.front().bandwidth;
    const Seconds bound{std::max(t_compute.value, t_memory.value)};
    if (T.value + 1e-15 < bound.value * (1 - 1e-12))
      throw std::logic_error(fmt::format("{}: simulated time {} s below the roofline bound {} s", name, T.value, bound.value));
    ordered_json ceilings_json = ordered_json::object();
    for (const Ceiling& x : ceilings)
      ceilings_json[x.level] = {{"bytes", to_json(x.bytes)}, {"bandwidth", to_json(x.bandwidth)},
                                {"time", to_json(x.time())}};
    ordered_json roofline = {
        {"level", binding.level},
        {"ceilings", ceilings_json},
        {"bandwidth", to_json(bw)},
        {"I_A", to_json(b_level.value > 0 ? ops / b_level : OpsPerByte{0})},
        {"I_C", to_json(b_n.value > 0 ? ops / b_n : OpsPerByte{0})},
        {"achieved_ops_per_s", to_json(T.value > 0 ? ops / T : OpsPerSecond{0})},
        {"u_C", to_json(Ratio{T.value > 0 ? (ops / T) / m_.peak_ops : 0})},
        {"u_M", to_json(Ratio{T.value > 0 ? (b_level / T) / bw : 0})},
        {"time_lower_bound", to_json(bound)},
        {"bound_by", bound_by(t_compute, ceilings)},
        {"time_simulated", to_json(T)},
        {"ratio_to_bound", bound.value > 0 ? T.value / bound.value : 0.0}};

    ordered_json c_p = {{"O", {{"ops", to_json(ops)}, {"by_precision", ops_by_precision}}},
                        {"B_M", {{"reg", to_json(reg)}, {"sram", to_json(sram)}, {"hbm", to_json(hbm)},
                                 {"host", to_json(host)}}},
                        {"B_I", to_json(b_i)},
                        {"B_N", to_json(b_n)},
                        {"V_M", vm},
                        {"V_C", v_cst["V_C"]},
                        {"T", to_json(T)},
                        {"E", to_json(e_gross)}};
    return {{"V_CST", v_cst}, {"Theta_CST", theta}, {"H_peak", h_peak},
            {"C_P", c_p},     {"energy", energy},   {"roofline", roofline}};
  }

  struct Edge {
    std::string src, dst;
    Bytes bytes;
  };
  // Which endpoints a class-N resource joins and the bytes it carried, as the model
  // declared them with the resource (edge, carries: traces/FORMAT.md).
  Edge edge_of(size_t index, const ResourceTotals& t, const Counts& c, const std::map<std::string, long double>& share_busy,
               int layer) const {
    const trace::Resource& r = reader_.resources()[index];
    const size_t arrow = r.edge.find('>');
    if (arrow == std::string::npos) return {r.owner, r.owner, Bytes{0}};  // a link the model does not attribute
    Edge e{r.edge.substr(0, arrow), r.edge.substr(arrow + 1), Bytes{0}};
    const size_t colon = r.carries.find(':');
    const std::string how = r.carries.substr(0, colon), what = colon == std::string::npos ? "" : r.carries.substr(colon + 1);
    auto counted = [&] {  // the counters named by the "+"-separated prefixes
      int64_t bytes = 0;
      for (size_t at = 0; at <= what.size();) {
        const size_t plus = std::min(what.find('+', at), what.size());
        bytes += sum_prefix(c, what.substr(at, plus - at));
        at = plus + 1;
      }
      return double(bytes);
    };
    if (how == "link_cycle") {
      // "<n>" or "<n>;<layer>=<n>;...": bytes per busy link-cycle, in the run and in layers whose
      // stored words differ (the layer's index in the trace).
      std::map<int64_t, double> in_layer;
      for (size_t at = what.find(';'); at != std::string::npos;) {
        const size_t eq = what.find('=', at), next = what.find(';', at + 1);
        in_layer[std::stoll(what.substr(at + 1, eq - at - 1))] = std::stod(what.substr(eq + 1, next - eq - 1));
        at = next;
      }
      const double rate = std::stod(what.substr(0, what.find(';')));
      auto rate_of = [&](int64_t trace_layer) {
        auto it = in_layer.find(trace_layer);
        return it == in_layer.end() ? rate : it->second;
      };
      const auto& layers = reader_.layers();
      if (in_layer.empty()) {
        e.bytes = Bytes{double(t.integral) * rate};
      } else if (layer >= 0) {
        e.bytes = Bytes{double(t.integral) * rate_of(layers[size_t(layer)].index)};
      } else {  // the run: layer by layer
        long double bytes = 0;
        for (size_t i = 0; i < layers.size(); ++i)
          bytes += integrals_->layers[i].resources[index].integral * rate_of(layers[i].index);
        e.bytes = Bytes{double(bytes)};
      }
    } else if (how == "actions") {
      e.bytes = Bytes{counted()};
    } else if (how == "share") {
      const long double busy = share_busy.at(r.carries);
      e.bytes = Bytes{busy > 0 ? double(counted() * (t.integral / busy)) : 0.0};
    } else {
      throw std::runtime_error("resource " + r.name + ": unknown carries rule " + r.carries);
    }
    return e;
  }

  std::string boundary() const { return m_.chips > 1 ? "node" : "accelerator-only"; }

  ordered_json scalar(const Normalization& n, const ScopeTotals& s) {
    if (n.boundary != boundary())
      throw InputError(n.path, 0, "boundary", "this run's boundary is " + boundary());
    const auto& res = reader_.resources();
    double c = 0, mem = 0, net = 0, st = 0;
    for (size_t i = 0; i < res.size(); ++i) {
      const double v = double(s.resources[i].integral) * period_;
      switch (res[i].cls) {
        case trace::ResourceClass::Compute: if (res[i].unit == "PE") c += v; break;
        case trace::ResourceClass::Memory: mem += v; break;
        case trace::ResourceClass::Network: net += v; break;
        case trace::ResourceClass::Storage: st += v; break;
      }
    }
    const Seconds v{n.w_c * c / n.c_ref + n.w_m * mem / n.m_ref + n.w_n * net / n.n_ref + n.w_s * st / n.s_ref};
    return {{"value", v.value},
            {"unit", "s"},
            {"definition", "integral of w_C r_C/C_ref + w_M r_M/M_ref + w_N r_N/N_ref + w_S r_S/S_ref dt"},
            {"reference", {{"C_ref", {{"value", n.c_ref}, {"unit", "PE"}}}, {"M_ref", {{"value", n.m_ref}, {"unit", "byte"}}},
                           {"N_ref", {{"value", n.n_ref}, {"unit", "link"}}}, {"S_ref", {{"value", n.s_ref}, {"unit", "byte"}}}}},
            {"weights", {{"w_C", n.w_c}, {"w_M", n.w_m}, {"w_N", n.w_n}, {"w_S", n.w_s}}},
            {"boundary", n.boundary},
            {"normalization_file", n.path}};
  }

  static std::string text(const ordered_json& r) {
    const auto& t = r["total"];
    auto q = [](const ordered_json& j) { return fmt::format("{:.6g} {}", j["value"].get<double>(), j["unit"].get<std::string>()); };
    std::string s = fmt::format("boundary {} | grade {} | energy table {}\n", r["boundary"].get<std::string>(),
                                r["grade"].get<std::string>(), r["energy_table"]["name"].get<std::string>());
    s += fmt::format("T_wall {}   T_serial {}   P_parallel {} PEs\n", q(t["Theta_CST"]["T_wall"]),
                     q(t["Theta_CST"]["T_serial"]), fmt::format("{:.1f}", t["Theta_CST"]["P_parallel"]["PEs"]["value"].get<double>()));
    const ordered_json& vc = t["V_CST"]["V_C"];
    s += fmt::format("V_C {} | {}{}   V_N {}\n", q(vc["PE_s"]), q(vc["device_s"]),
                     vc.contains("lane_s") ? " | " + q(vc["lane_s"]) : std::string(), q(t["V_CST"]["V_N"]));
    for (const auto& [level, v] : t["V_CST"]["V_M"].items()) s += fmt::format("V_M[{}] {}\n", level, q(v));
    s += fmt::format("H_peak: D {}  M {}  N {}  P_actual {}\n", q(t["H_peak"]["D_peak"]), q(t["H_peak"]["M_peak"]),
                     q(t["H_peak"]["N_peak"]), q(t["H_peak"]["P_peak_actual"]));
    s += fmt::format("energy: gross {}  base {}  marginal {}  Landauer bound {}\n", q(t["energy"]["E_gross"]),
                     q(t["energy"]["E_base"]), q(t["energy"]["E_marg"]), q(t["energy"]["E_thermo_min"]));
    s += fmt::format("roofline ({}): I_A {}  u_C {:.3f}  u_M {:.3f}  time {:.4g} s vs bound {:.4g} s ({}-bound, x{:.3f})\n",
                     t["roofline"]["level"].get<std::string>(), q(t["roofline"]["I_A"]),
                     t["roofline"]["u_C"]["value"].get<double>(), t["roofline"]["u_M"]["value"].get<double>(),
                     t["roofline"]["time_simulated"]["value"].get<double>(),
                     t["roofline"]["time_lower_bound"]["value"].get<double>(), t["roofline"]["bound_by"].get<std::string>(),
                     t["roofline"]["ratio_to_bound"].get<double>());
    if (r.contains("V_CST_star"))
      s += fmt::format("V_CST* {:.6g} s (normalized by {})\n", r["V_CST_star"]["value"].get<double>(),
                       r["V_CST_star"]["normalization_file"].get<std::string>());
    return s;
  }

  const PostOptions& opt_;
  const nlohmann::json& summary_;
  const Machine m_;
  const IdealCycles ideal_;  // the roofline's `array` ceiling
  trace::TraceReader& reader_;
  const EnergyTable& energy_;
  const Integrals* integrals_ = nullptr;  // of the run being reported (build())
  const double period_;
  int64_t window_ = 0;
};

}  // namespace

std::string unscoped_action(const std::string& action) { return unscoped(action); }

PostOutputs post_process(const PostOptions& o) {
  if (o.window < 0) throw InputError("--window", 0, "", "must be a positive number of cycles");
  const fs::path summary_path = o.run_dir / "summary.json";
  if (!is_file(summary_path)) throw InputError(summary_path.string(), 0, "", "not a run directory (no summary.json)");
  const nlohmann::json summary = trace::read_run_summary(summary_path);
  Machine machine = read_machine(summary_path, summary);
  const fs::path table = o.run_dir / "energy.yaml";
  const EnergyTable energy = o.energy ? *o.energy : load_energy_table(table.string());
  if (!energy.resolved())  // the run writes its table resolved for its geometry
    throw InputError(table.string(), 0, "", "has size-dependent rows (pJ_by_bank_bytes, W_per_byte, W_per_PE, W_per_buffer_byte): not a run's table");
  auto reader = std::make_unique<trace::TraceReader>(o.run_dir / "trace");
  reader->manifest().check_summary(summary_path, summary);
  widen_edges_to_the_trace(machine, reader->resources());
  if (reader->header().clock_hz != machine.clock_hz)
    throw InputError(summary_path.string(), 0, "arch.clock_hz",
                     fmt::format("{} Hz, but its trace runs at {} Hz", machine.clock_hz, reader->header().clock_hz));
  return Reporter(o, summary, machine, read_ideal_cycles(summary_path, summary), *reader, energy).build();
}

void write_post_outputs(const fs::path& dir, const PostOutputs& out) {
  out.layers->write_document(dir / "report.json", out.report);
  io::write_file(dir / "report.txt", out.text);
  if (out.energy_windows->target() != dir / "energy_windows.csv")
    throw std::logic_error("write_post_outputs: energy_windows.csv belongs to another directory");
  out.energy_windows->commit();
}

}  // namespace cstsim::post
