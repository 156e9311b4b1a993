#include "sim/bench/noc_bench_cli.h"

#include <algorithm>
#include <iostream>
#include <stdexcept>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/input_error.h"
#include "core/text.h"
#include "models/noc/noc_bench.h"

namespace cstsim {
using noc::BenchOptions;
using noc::BenchResult;

namespace {
namespace po = boost::program_options;
using noc::BenchOptions;
using noc::BenchResult;

// A bad flag or value: printed as "error: noc-bench: <flag>: <message>", exit 2.
[[noreturn]] void bad_flag(const std::string& flag, const std::string& message) {
  throw InputError::usage("noc-bench", flag, message);
}

int64_t parse_whole(const std::string& flag, const std::string& text, int64_t min, int64_t max) {
  const auto v = text::parse_int(text);
  if (!v || *v < min || *v > max)
    bad_flag(flag, fmt::format("expected a whole number in {}..{}, got {}", min, max, text::quoted(text)));
  return *v;
}

double parse_real(const std::string& flag, const std::string& text) {
  const auto v = text::parse_double(text);
  if (!v) bad_flag(flag, "expected a number, got " + text::quoted(text));
  return *v;
}

std::pair<int, int> parse_pair(const std::string& flag, const std::string& text, char sep, const char* form) {
  const auto at = text.find(sep);
  if (at == std::string::npos) bad_flag(flag, fmt::format("expected {}, got {}", form, text::quoted(text)));
  const auto a = text::parse_int(text.substr(0, at)), b = text::parse_int(text.substr(at + 1));
  if (!a || !b) bad_flag(flag, fmt::format("expected {}, got {}", form, text::quoted(text)));
  return {int(*a), int(*b)};
}

void print_text(const BenchOptions& o, const BenchResult& r) {
  const noc::NocConfig& c = o.config;
  std::cout << fmt::format(
      "noc-bench: {}x{} mesh ({}), {} traffic, {}-byte packets = {} flit{} of {} B; {} vnets x {} VCs x {} flits\n",
      c.cols, c.rows, c.routing, noc::traffic_name(o.traffic.kind), o.packet_bytes, r.flits_per_packet,
      r.flits_per_packet == 1 ? "" : "s", c.flit_bytes, c.vnets, c.vcs_per_vnet, c.buffer_depth);
  std::cout << fmt::format(
      "latencies: router {}, link {}, credit {} cycles; warm-up {}, measured {} cycles, {} sources\n", c.router_latency,
      c.link_latency, c.credit_latency, o.warmup, o.cycles, r.sources);
  std::cout << fmt::format("offered    {:.4f} flits/node/cycle\n", r.offered);
  std::cout << fmt::format("accepted   {:.4f} flits/node/cycle  (channel-load bound {:.4f}, busiest channel {})\n",
                           r.accepted, r.bound.throughput, r.bound.channel);
  if (r.busiest_link >= 0)
    std::cout << fmt::format("links      busiest {} busy {:.1f}% of the window\n", r.busiest_link_name,
                             100 * r.busiest_link_utilization);
  std::cout << fmt::format("latency    avg {:.2f}  p50 {}  p99 {}  max {} cycles  (zero-load avg {:.2f})\n",
                           r.latency_avg, r.latency_p50, r.latency_p99, r.latency_max, r.zero_load_avg);
  std::cout << fmt::format("packets    {} measured, {} delivered{}\n", r.measured_packets, r.delivered_measured,
                           r.drained ? "" : "  (NOT drained within the drain limit: latencies are lower bounds)");
  std::cout << fmt::format("simulator  {} cycles ({} stepped), {} flit-hops, {:.3f} s, {:.3g} flit-hops/s\n",
                           r.end_cycle, r.steps, r.flit_hops, r.wall_seconds,
                           r.wall_seconds > 0 ? double(r.flit_hops) / r.wall_seconds : 0.0);
}

void print_json(const BenchOptions& o, const BenchResult& r) {
  const noc::NocConfig& c = o.config;
  nlohmann::json j;
  j["mesh"] = {{"cols", c.cols}, {"rows", c.rows}, {"routing", c.routing}};
  j["config"] = {{"flit_bytes", c.flit_bytes},     {"router_latency", c.router_latency},
                 {"link_latency", c.link_latency}, {"credit_latency", c.credit_latency},
                 {"buffer_depth", c.buffer_depth}, {"vnets", c.vnets},
                 {"vcs_per_vnet", c.vcs_per_vnet}};
  j["traffic"] = noc::traffic_name(o.traffic.kind);
  j["packet_bytes"] = o.packet_bytes;
  j["flits_per_packet"] = r.flits_per_packet;
  j["warmup_cycles"] = o.warmup;
  j["measure_cycles"] = o.cycles;
  j["sources"] = r.sources;
  j["offered_flits_per_node_cycle"] = r.offered;
  j["accepted_flits_per_node_cycle"] = r.accepted;
  j["bound_flits_per_node_cycle"] = r.bound.throughput;
  j["bound_channel"] = r.bound.channel;
  j["busiest_link"] = {{"name", r.busiest_link_name}, {"utilization", r.busiest_link_utilization}};
  j["latency_cycles"] = {{"avg", r.latency_avg},
                         {"p50", r.latency_p50},
                         {"p99", r.latency_p99},
                         {"max", r.latency_max},
                         {"zero_load_avg", r.zero_load_avg}};
  j["measured_packets"] = r.measured_packets;
  j["delivered_packets"] = r.delivered_measured;
  j["drained"] = r.drained;
  j["end_cycle"] = r.end_cycle;
  j["stepped_cycles"] = r.steps;
  j["flit_hops"] = r.flit_hops;
  j["wall_seconds"] = r.wall_seconds;
  std::cout << j.dump(2) << "\n";
}

constexpr const char* kNocBenchUsage =
    "usage: cstsim noc-bench --rate R [--mesh KxK] [--traffic uniform|transpose|hotspot] [options]\n\n"
    "Synthetic load on the mesh NoC: Bernoulli injection at R flits/node/cycle (a packet of F flits\n"
    "starts with probability R/F per node and cycle; vnet drawn uniformly), warm-up, measurement window,\n"
    "drain. Prints offered and accepted throughput, the channel-load bound of the pattern, and average\n"
    "and 99th-percentile packet latency (creation to tail delivery). models/noc/README.md has the model.\n\noptions";

}  // namespace

int noc_bench_command(const std::vector<std::string>& args) {
  try {
    std::string mesh, traffic = "uniform", rate, cycles = "10000", warmup = "1000", flit_bytes, packet_bytes = "64",
                      config, seed = "1", hotspot, hotspot_fraction = "0.2";
    std::vector<std::string> sets;
    bool json = false;
    po::options_description desc(kNocBenchUsage);
    desc.add_options()("help,h", "show this help")("mesh", po::value(&mesh)->value_name("KxK"),
                                                   "mesh size, columns x rows (default: the config's, 4x4)")(
        "traffic", po::value(&traffic)->value_name("NAME"), "uniform (default), transpose or hotspot")(
        "rate", po::value(&rate)->value_name("R"), "offered load, flits/node/cycle, in (0, 1] (required)")(
        "cycles", po::value(&cycles)->value_name("N"), "measurement window, cycles (default 10000)")(
        "warmup", po::value(&warmup)->value_name("W"), "warm-up, cycles (default 1000)")(
        "flit-bytes", po::value(&flit_bytes)->value_name("B"), "flit width in bytes (default: the config's, 16)")(
        "packet-bytes", po::value(&packet_bytes)->value_name("P"), "packet payload bytes (default 64)")(
        "config", po::value(&config)->value_name("FILE"), "NoC YAML (default: built-in = configs/noc/mesh-4x4.yaml)")(
        "set", po::value(&sets)->value_name("KEY=VALUE")->composing(),
        "override a NoC key, e.g. --set buffer_depth=8 --set router_latency=2 (repeatable)")(
        "hotspot", po::value(&hotspot)->value_name("X,Y"), "hot node of --traffic hotspot (default: the centre)")(
        "hotspot-fraction", po::value(&hotspot_fraction)->value_name("F"),
        "share of packets sent to the hot node (default 0.2)")(
        "seed", po::value(&seed)->value_name("S"), "random seed (default 1)")("json", po::bool_switch(&json),
                                                                              "print one JSON object instead of text");
    po::variables_map vm;
    try {
      const po::positional_options_description none;  // stray words are errors
      po::store(po::command_line_parser(args).options(desc).positional(none).run(), vm);
      po::notify(vm);
    } catch (const po::error& e) {
      throw InputError::usage("noc-bench", "", e.what());
    }
    if (vm.count("help")) {
      std::cout << desc << "\n";
      return 0;
    }
    BenchOptions o;
    if (!config.empty()) o.config = noc::load_noc_config(config);
    if (!mesh.empty()) {
      const auto [cols, rows] = parse_pair("--mesh", mesh, 'x', "KxK (e.g. 8x8)");
      if (cols < 1 || rows < 1 || cols > 64 || rows > 64)
        bad_flag("--mesh", "each side must be 1..64, got " + text::quoted(mesh));
      o.config.cols = cols;
      o.config.rows = rows;
      o.config.edge_nodes.clear();  // the bench loads tiles only
      o.config.name = fmt::format("mesh-{}x{}", cols, rows);
    }
    if (!flit_bytes.empty()) o.config.flit_bytes = int(parse_whole("--flit-bytes", flit_bytes, 1, 4096));
    std::vector<std::pair<std::string, std::string>> overrides;
    for (const std::string& s : sets) {
      const auto eq = s.find('=');
      if (eq == std::string::npos || eq == 0) throw InputError("--set", 0, s, "expected key=value");
      overrides.emplace_back(s.substr(0, eq), s.substr(eq + 1));
    }
    noc::apply_overrides(o.config, overrides);
    try {
      o.traffic.kind = noc::parse_traffic(traffic);
    } catch (const std::invalid_argument& e) {
      bad_flag("--traffic", e.what());
    }
    if (!vm.count("rate")) bad_flag("--rate", "is required (flits/node/cycle, e.g. --rate 0.2)");
    o.rate = parse_real("--rate", rate);
    if (!(o.rate > 0 && o.rate <= 1)) bad_flag("--rate", fmt::format("must be in (0, 1] flits/node/cycle, got {}", rate));
    o.cycles = parse_whole("--cycles", cycles, 1, int64_t(1) << 40);
    o.warmup = parse_whole("--warmup", warmup, 0, int64_t(1) << 40);
    o.packet_bytes = parse_whole("--packet-bytes", packet_bytes, 1, int64_t(65535) * o.config.flit_bytes);
    o.seed = uint64_t(parse_whole("--seed", seed, 0, INT64_MAX));
    o.traffic.hotspot_fraction = parse_real("--hotspot-fraction", hotspot_fraction);
    if (!(o.traffic.hotspot_fraction >= 0 && o.traffic.hotspot_fraction <= 1))
      bad_flag("--hotspot-fraction", "must be in [0, 1], got " + text::quoted(hotspot_fraction));
    const noc::Mesh m(o.config.cols, o.config.rows);
    o.traffic.hotspot = m.node(o.config.cols / 2, o.config.rows / 2);
    if (!hotspot.empty()) {
      const auto [x, y] = parse_pair("--hotspot", hotspot, ',', "X,Y");
      if (x < 0 || y < 0 || x >= o.config.cols || y >= o.config.rows)
        bad_flag("--hotspot", fmt::format("({},{}) is outside the {}x{} mesh", x, y, o.config.cols, o.config.rows));
      o.traffic.hotspot = m.node(x, y);
    }
    if (o.traffic.kind == noc::TrafficKind::Transpose && o.config.cols != o.config.rows)
      bad_flag("--traffic", fmt::format("transpose needs a square mesh, got {}x{}", o.config.cols, o.config.rows));
    const BenchResult r = noc::run_noc_bench(o);
    if (json)
      print_json(o, r);
    else
      print_text(o, r);
    return 0;
  } catch (const InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace cstsim
