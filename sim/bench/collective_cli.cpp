#include "sim/bench/collective_cli.h"
#include "sim/run/chips.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <numeric>
#include <stdexcept>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/input_error.h"
#include "core/text.h"
#include "models/interconnect/algorithms/i_collective_algorithm.h"
#include "models/interconnect/topologies.h"
#include "sim/config/arch_spec.h"
#include "sim/config/link_file.h"

namespace cstsim {

namespace {
namespace po = boost::program_options;
using namespace ic;

[[noreturn]] void bad_option(const std::string& flag, const std::string& message) {
  throw InputError(flag, 0, "", message);
}

// Bytes, with an optional KiB, MiB or GiB (powers of 2) or KB, MB, GB (powers of 10).
int64_t parse_bytes(const std::string& flag, const std::string& text) {
  static const std::pair<const char*, int64_t> units[] = {{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", int64_t(1) << 30},
                                                          {"KB", 1000}, {"MB", 1000000}, {"GB", 1000000000}};
  int64_t scale = 1;
  std::string digits = text;
  for (const auto& [suffix, factor] : units) {
    const std::string s(suffix);
    if (text.size() > s.size() && text.compare(text.size() - s.size(), s.size(), s) == 0) {
      digits = text.substr(0, text.size() - s.size());
      scale = factor;
      break;
    }
  }
  const auto v = text::parse_int(digits);
  if (!v || *v < 1 || *v > (int64_t(1) << 40) / scale)
    bad_option(flag, "expected a positive number of bytes up to 1 TiB (suffixes KiB, MiB, GiB, KB, MB, GB), got " +
                  text::quoted(text));
  return *v * scale;
}

// The topology by its table name (models/interconnect/topologies.h); old spellings are refused
// with the new one.
Topology topology_named(const std::string& name, int chips, int torus_x) {
  if (const std::string now = renamed_topology(name); !now.empty()) {
    // torus:XxY: the chips per row became a flag of their own (the arch's interconnect.torus_x).
    const std::string x = name.rfind("torus:", 0) == 0 ? name.substr(6, name.find('x', 6) - 6) : "X";
    bad_option("--topology", fmt::format("{} is now spelled {}", text::quoted(name),
                                         text::quoted(now == "torus2d" ? "--topology torus2d --torus-x " + x : now)));
  }
  const TopologyFamily* family = topology_family(name);
  if (!family)
    bad_option("--topology", fmt::format("unknown topology {} (known: {})", text::quoted(name), fmt::join(topology_names(), ", ")));
  if (torus_x != 0 && !family->per_row) bad_option("--torus-x", "applies only with --topology torus2d");
  if (family->per_row && torus_x == 0) bad_option("--torus-x", "required with --topology torus2d (chips per row)");
  if (const std::string problem = topology_size_problem(*family, chips, torus_x); !problem.empty())
    bad_option(family->per_row ? "--torus-x" : "--chips", problem);
  return make_topology(name, chips, torus_x);
}

// The ops the command runs on every chip (a send needs two ends it has no flags for).
std::vector<std::string> op_names() {
  std::vector<std::string> out;
  for (const CollectiveOp& op : collective_ops())
    if (!op.pair) out.push_back(op.name);
  return out;
}

// --op as it was spelled before algorithms had a flag of their own: refused with the new spelling.
void refuse_old_op(const std::string& op) {
  static const std::map<std::string, std::string> old = {{"bidirectional_all_reduce", "bidirectional_ring"},
                                                         {"halving_doubling_all_reduce", "halving_doubling"},
                                                         {"torus_all_reduce", "torus2d"}};
  if (const auto it = old.find(op); it != old.end())
    bad_option("--op", fmt::format("{} is now spelled {}", text::quoted(op), text::quoted("--op all_reduce --algorithm " + it->second)));
}

// The algorithm asked for (or the one a run would use), checked against the op and the topology.
const ICollectiveAlgorithm& algorithm_for(std::string& name, const CollectiveOp& op, const Topology& topology) {
  if (name.empty()) name = default_algorithm(op.name, topology.name());
  const ICollectiveAlgorithm* a = nullptr;
  try {
    a = &collective_algorithm(name);
  } catch (const std::invalid_argument& e) {
    bad_option("--algorithm", e.what());
  }
  if (!a->runs(op.name)) {
    std::vector<std::string> can;
    for (const std::string& n : collective_algorithm_names())
      if (collective_algorithm(n).runs(op.name)) can.push_back(n);
    bad_option("--algorithm", fmt::format("{} does not run {} (these do: {})", name, op.name, fmt::join(can, ", ")));
  }
  if (const Fit fit = a->fit(topology); !fit.problem.empty()) bad_option(fit.chip_count ? "--chips" : "--algorithm", fit.problem);
  return *a;
}

}  // namespace

int collective_command(const std::vector<std::string>& args) {
  std::string link_path, topology = "ring", op = "all_reduce", algorithm, bytes_text, slice_text, arch_path;
  int chips = 8, torus_x = 0, bins = 0;
  bool json = false;
  const std::string topologies = fmt::format("{}", fmt::join(topology_names(), " | "));
  const std::string ops = fmt::format("{}", fmt::join(op_names(), " | "));
  const std::string algorithms = fmt::format("{}", fmt::join(collective_algorithm_names(), " | "));
  po::options_description d("cstsim collective");
  d.add_options()("link", po::value(&link_path)->required(), "link preset (configs/interconnect/*.yaml)")(
      "topology", po::value(&topology), (topologies + " (default ring)").c_str())(
      "torus-x", po::value(&torus_x), "torus2d: chips per row (--chips / this many rows)")(
      "chips", po::value(&chips), "chips (default 8)")(
      "op", po::value(&op), (ops + " (default all_reduce)").c_str())(
      "algorithm", po::value(&algorithm), (algorithms + " (default: what a run uses for the op on the topology)").c_str())(
      "bytes", po::value(&bytes_text)->required(), "bytes per chip (1GiB, 64MiB, ...)")(
      "slice", po::value(&slice_text), "cut each chunk into slices of at most this many bytes (pipelining)")(
      "arch", po::value(&arch_path),
      "time each chip's reduction of a forwarded chunk on this arch's vector unit (its add rate and ports)")(
      "json", po::bool_switch(&json), "print JSON")(
      "bins", po::value(&bins), "with --json: each link's bytes and busy fraction over time, in this many equal bins")(
      "help", "this text");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(d).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: cstsim collective --link <yaml> --bytes N [--topology T] [--chips N] [--op OP] "
                   "[--algorithm A] [options]\n"
                   "  cstsim collective --link configs/interconnect/nvlink4-h100.yaml --bytes 64MiB --chips 8\n"
                   "  cstsim collective --link configs/interconnect/ici-v5p.yaml --topology torus2d --torus-x 4 "
                   "--chips 16 --algorithm torus2d --bytes 1GiB --json\n"
               << d;
      return 0;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError("collective", 0, "", e.what());
  }
  if (chips < 2 || chips > 4096) bad_option("--chips", fmt::format("expected 2..4096, got {}", chips));
  if (bins < 0 || bins > 100000) bad_option("--bins", fmt::format("expected 0..100000, got {}", bins));
  if (bins > 0 && !json) bad_option("--bins", "goes with --json");
  const LinkFile link = load_link_file(link_path);
  const int64_t bytes = parse_bytes("--bytes", bytes_text);
  CollectiveOptions o;
  if (!slice_text.empty()) o.slice_bytes = parse_bytes("--slice", slice_text);
  if (!arch_path.empty()) {
    const ArchSpec a = load_arch(arch_path);
    if (a.vector.lanes == 0) bad_option("--arch", fmt::format("{} has no vector unit (vector.lanes) to reduce on", arch_path));
    o.reduce_ps_per_byte = reduce_ps_per_byte(a);  // the run's own rate (sim/run/chips.h)
  }
  refuse_old_op(op);
  const CollectiveOp* what = collective_op(op);
  if (!what || what->pair)
    bad_option("--op", fmt::format("one of {}; got {}", fmt::join(op_names(), ", "), text::quoted(op)));
  Fabric f(topology_named(topology, chips, torus_x), link.spec);
  const ICollectiveAlgorithm& how = algorithm_for(algorithm, *what, f.topology());
  std::vector<int> ring(static_cast<size_t>(chips));
  std::iota(ring.begin(), ring.end(), 0);
  const Collective c = how.post(f, {op, bytes, ring, -1, -1, o});
  const double bus_factor = ic::bus_factor(*what, chips);  // nccl-tests: busbw = algbw x this
  f.run();
  const double seconds = double(c.end_ps(f)) * 1e-12;
  const double algbw = double(bytes) / seconds / 1e9;
  const int64_t sent = *std::max_element(c.sent_by_chip.begin(), c.sent_by_chip.end());
  double energy_pj = 0;
  int busiest = 0, used = 0;
  for (size_t l = 0; l < f.links().size(); ++l) {
    energy_pj += f.links()[l].energy_pj;
    used += f.links()[l].payload_bytes > 0;
    if (f.links()[l].busy_ps > f.links()[size_t(busiest)].busy_ps) busiest = int(l);
  }
  const LinkStats& top = f.links()[size_t(busiest)];
  const DirectedLink& edge = f.topology().links()[size_t(busiest)];
  auto node = [&](int n) { return n >= chips ? std::string("switch") : std::to_string(n); };
  if (json) {
    nlohmann::ordered_json j;
    j["op"] = op;
    j["algorithm"] = algorithm;
    j["chips"] = chips;
    j["topology"] = f.topology().name();
    j["link"] = {{"name", link.name}, {"bandwidth_gbps", link.spec.bytes_per_ns}, {"latency_ns", link.spec.latency_ps / 1e3}};
    j["bytes"] = bytes;
    if (!arch_path.empty()) j["reduce_ps_per_byte"] = o.reduce_ps_per_byte;
    j["time_s"] = seconds;
    j["bytes_sent_per_chip"] = c.sent_by_chip;
    j["algbw_gbps"] = algbw;
    j["busbw_gbps"] = algbw * bus_factor;
    j["energy_j"] = energy_pj * 1e-12;
    nlohmann::ordered_json links = nlohmann::ordered_json::array();
    for (size_t l = 0; l < f.links().size(); ++l) {
      const LinkStats& s = f.links()[l];
      if (s.messages == 0) continue;
      nlohmann::ordered_json e{{"src", node(f.topology().links()[l].from)}, {"dst", node(f.topology().links()[l].to)},
                               {"payload_bytes", s.payload_bytes}, {"wire_bytes", s.wire_bytes},
                               {"busy_s", s.busy_ps * 1e-12}, {"energy_j", s.energy_pj * 1e-12}};
      if (bins > 0) {  // each use's wire bytes and busy time, split over the bins it spans
        const int64_t end = c.end_ps(f);
        std::vector<double> bytes_in(size_t(bins), 0), busy(size_t(bins), 0);
        for (const LinkUse& u : s.uses)
          for (int b = int(u.start_ps * bins / end); b < bins && b * end / bins < u.end_ps; ++b) {
            const int64_t lo = std::max(u.start_ps, b * end / bins), hi = std::min(u.end_ps, (b + 1) * end / bins);
            if (hi <= lo) continue;
            busy[size_t(b)] += double(hi - lo) / double((b + 1) * end / bins - b * end / bins);
            bytes_in[size_t(b)] += double(u.wire_bytes) * double(hi - lo) / double(u.end_ps - u.start_ps);
          }
        e["timeline"] = {{"bin_s", double(end) / bins * 1e-12}, {"wire_bytes", bytes_in}, {"busy", busy}};
      }
      links.push_back(e);
    }
    j["links"] = links;
    std::cout << j.dump(1) << "\n";
    return 0;
  }
  std::cout << fmt::format("collective: {} ({}) of {} B per chip on {} chips, {}, link {} ({:g} GB/s per direction, {:g} ns)\n",
                           op, algorithm, bytes, chips, f.topology().name(), link.name, link.spec.bytes_per_ns,
                           link.spec.latency_ps / 1e3);
  std::cout << fmt::format("time       {:.6g} s\n", seconds);
  std::cout << fmt::format("sent       {} B by the busiest chip\n", sent);
  std::cout << fmt::format("bandwidth  algbw {:.4g} GB/s, busbw {:.4g} GB/s\n", algbw, algbw * bus_factor);
  std::cout << fmt::format("links      {} of {} used; busiest {}>{}: {} B, busy {:.6g} s ({:.1f} %)\n", used,
                           f.links().size(), node(edge.from), node(edge.to), top.payload_bytes, top.busy_ps * 1e-12,
                           100.0 * double(top.busy_ps) / double(c.end_ps(f)));
  std::cout << fmt::format("energy     {:.6g} J on the links\n", energy_pj * 1e-12);
  return 0;
}

}  // namespace cstsim
