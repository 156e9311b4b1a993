#include "sim/bench/hbm_bench.h"

#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "models/hbm/address_map.h"
#include "models/hbm/hbm_module.h"
#include "models/hbm/traffic.h"
#include "core/input_error.h"
#include "core/input_file.h"

namespace cstsim {
namespace {

namespace po = boost::program_options;
using namespace hbm;

// A bad flag or value; hbm_bench_command prefixes it (and every other error) with "hbm-bench: ".
InputError hbm_flag_error(const std::string& what) { return InputError::usage("", "", what); }

// A request stream, one request a line: "R <address>" or "W <address>" (Ramulator 2's load/store
// trace spelling "LD" / "ST" too, so one file feeds both), the address decimal or 0x hex; blank
// lines and "#" comments skipped. Every address must be a request's (a multiple of request_bytes)
// inside the stack (capacity bytes). Bad lines: file:line, exit 2.
std::vector<TraceRequest> read_trace(const std::string& path, uint64_t request_bytes, uint64_t capacity) {
  InputStream in(path);
  std::vector<TraceRequest> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string op, addr, extra;
    if (!(words >> op)) continue;
    if (!(words >> addr) || (words >> extra) || (op != "R" && op != "W" && op != "LD" && op != "ST"))
      throw InputError(path, n, "trace", fmt::format("expected 'R|W|LD|ST <address>', got '{}'", line));
    size_t used = 0;
    uint64_t a = 0;
    try {
      a = std::stoull(addr, &used, 0);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != addr.size() || addr[0] == '-')
      throw InputError(path, n, "trace", fmt::format("'{}' is not an address (decimal or 0x hex)", addr));
    if (a % request_bytes != 0 || a > capacity - request_bytes)
      throw InputError(path, n, "trace",
                       fmt::format("address {} is not the start of a {} B request inside the stack ({} B)", addr,
                                   request_bytes, capacity));
    out.push_back({a, op == "W" || op == "ST"});
  }
  if (out.empty()) throw InputError(path, 0, "trace", "no requests in the file");
  return out;
}

constexpr const char* kHbmBenchUsage =
    "usage: cstsim hbm-bench --memory <yaml> [--pattern seq|random|strided|trace] [options]\n"
    "\n"
    "Closed-loop traffic on one HBM stack (models/hbm): --outstanding requests in flight, a new\n"
    "one each time one completes, until --bytes have been moved. Prints achieved bandwidth\n"
    "against peak, row-hit rate, latency (mean, p50, p99, max), commands and the refresh share.\n"
    "\n"
    "  seq      consecutive addresses from 0\n"
    "  random   uniform request-aligned addresses over the stack (seeded)\n"
    "  strided  address i x --stride (default: the next row of the same bank, the worst case)\n"
    "  trace    the requests of --trace FILE in order, a line each: R|W|LD|ST <address>\n"
    "           (LD/ST: Ramulator 2's load/store traces, so one file feeds both simulators)\n"
    "\n"
    "Sizes accept 4096, 64KiB, 4MiB, 1GiB. --scope pc runs one pseudo-channel alone\n"
    "(--set organization.channels=1 --set organization.pseudo_channels=1).\n"
    "\n"
    "examples:\n"
    "  cstsim hbm-bench --memory configs/memory/hbm2-2000.yaml --pattern seq --scope pc\n"
    "  cstsim hbm-bench --memory configs/memory/hbm3-6400.yaml --pattern random --bytes 16MiB --json\n"
    "  cstsim hbm-bench --memory configs/memory/hbm2-2000.yaml --set timing.tRFC=350ns\n"
    "  cstsim hbm-bench --memory configs/memory/hbm3-6400.yaml --pattern trace --trace reads.trace\n";

uint64_t parse_size(const std::string& flag, const std::string& text) {
  size_t end = 0;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  const std::string digits = text.substr(0, end), unit = text.substr(end);
  uint64_t mult = 0;
  if (unit.empty() || unit == "B")
    mult = 1;
  else if (unit == "KiB")
    mult = uint64_t(1) << 10;
  else if (unit == "MiB")
    mult = uint64_t(1) << 20;
  else if (unit == "GiB")
    mult = uint64_t(1) << 30;
  if (digits.empty() || digits.size() > 12 || mult == 0)
    throw hbm_flag_error(fmt::format("--{}: expected a size like 4096, 64KiB, 4MiB or 1GiB, got '{}'", flag, text));
  const uint64_t v = std::stoull(digits) * mult;
  if (v == 0) throw hbm_flag_error(fmt::format("--{}: must be positive", flag));
  return v;
}

nlohmann::ordered_json to_json(const HbmSpec& spec, const TrafficOptions& o, const TrafficResult& r,
                               const std::string& scope, const std::string& engine) {
  const TrafficFigures f = figures(spec, r);
  const ChannelStats& s = r.stats;
  nlohmann::ordered_json j;
  j["memory"] = {{"name", spec.name},
                 {"standard", spec.standard},
                 {"source", spec.source},
                 {"channels", spec.org.channels},
                 {"pseudo_channels", spec.org.pcs()},
                 {"tck_ns", spec.tck_ns},
                 {"scheduler", spec.scheduler},
                 {"queue_depth", spec.queue_depth},
                 {"address_mapping", spec.address_mapping},
                 {"refresh", spec.refresh}};
  j["traffic"] = {{"pattern", pattern_name(o.pattern)},
                  {"scope", scope},
                  {"engine", engine},
                  {"bytes", r.bytes},
                  {"requests", r.requests},
                  {"request_bytes", o.request_bytes},
                  {"write_fraction", o.write_fraction},
                  {"outstanding", r.outstanding},
                  {"seed", o.seed}};
  if (o.pattern == Pattern::Strided) j["traffic"]["stride"] = r.stride;
  j["cycles"] = r.elapsed();
  j["seconds"] = double(r.elapsed()) * spec.tck_ns * 1e-9;
  j["bandwidth_gbps"] = f.bandwidth_gbps;
  j["peak_gbps"] = f.peak_gbps;
  j["efficiency"] = f.efficiency;
  j["row_hit_rate"] = s.row_hit_rate();
  j["row"] = {{"hits", s.row_hits}, {"misses", s.row_misses}, {"conflicts", s.row_conflicts}};
  auto ns = [&](double cycles) { return cycles * spec.tck_ns; };
  j["latency_cycles"] = {{"mean", r.mean_latency()},
                         {"p50", r.percentile(50)},
                         {"p99", r.percentile(99)},
                         {"max", r.latencies.empty() ? 0 : r.latencies.back()}};
  j["latency_ns"] = {{"mean", ns(r.mean_latency())},
                     {"p50", ns(double(r.percentile(50)))},
                     {"p99", ns(double(r.percentile(99)))},
                     {"max", ns(double(r.latencies.empty() ? 0 : r.latencies.back()))}};
  j["commands"] = {{"ACT", s.activates}, {"PRE", s.precharges}, {"PREA", s.precharge_alls}, {"RD", s.reads},
                   {"WR", s.writes},     {"REF", s.refreshes},  {"REFpb", s.bank_refreshes}};
  // Share of bank time inside tRFC (REF) / tRFCpb (REFpb); see TrafficFigures::refresh_share.
  j["refresh_share"] = f.refresh_share;
  j["refresh_share_expected"] = expected_refresh_share(spec);
  j["data_bus_busy_share"] = r.end_cycle > 0 ? double(s.data_bus_busy) / double(r.end_cycle * spec.org.pcs()) : 0.0;
  return j;
}

std::string to_text(const nlohmann::ordered_json& j) {
  const auto& m = j["memory"];
  const auto& t = j["traffic"];
  std::string out = fmt::format(
      "hbm-bench: {} ({}, {} pseudo-channel(s), tCK {} ns, {}, window {}, refresh {})\n"
      "  traffic       {} {}, {} requests of {} B, {:.0f}% writes, {} outstanding{}\n",
      m["name"].get<std::string>(), m["standard"].get<std::string>(), m["pseudo_channels"].get<int>(),
      m["tck_ns"].get<double>(), m["scheduler"].get<std::string>(), m["queue_depth"].get<int>(),
      m["refresh"].get<std::string>(), t["pattern"].get<std::string>(), t["scope"].get<std::string>(),
      t["requests"].get<uint64_t>(), t["request_bytes"].get<uint64_t>(), 100 * t["write_fraction"].get<double>(),
      t["outstanding"].get<int>(),
      t.contains("stride") ? fmt::format(", stride {} B", t["stride"].get<uint64_t>()) : "");
  out += fmt::format("  time          {} cycles = {:.3f} us\n", j["cycles"].get<int64_t>(),
                     j["seconds"].get<double>() * 1e6);
  out += fmt::format("  bandwidth     {:.2f} GB/s = {:.1f}% of peak {:.2f} GB/s\n", j["bandwidth_gbps"].get<double>(),
                     100 * j["efficiency"].get<double>(), j["peak_gbps"].get<double>());
  out += fmt::format("  row hits      {:.1f}% (hits {}, misses {}, conflicts {})\n",
                     100 * j["row_hit_rate"].get<double>(), j["row"]["hits"].get<uint64_t>(),
                     j["row"]["misses"].get<uint64_t>(), j["row"]["conflicts"].get<uint64_t>());
  const auto& l = j["latency_ns"];
  const auto& lc = j["latency_cycles"];
  out += fmt::format(
      "  latency ns    mean {:.1f}  p50 {:.1f}  p99 {:.1f}  max {:.1f}   (cycles: {:.1f} / {} / {} / {})\n",
      l["mean"].get<double>(), l["p50"].get<double>(), l["p99"].get<double>(), l["max"].get<double>(),
      lc["mean"].get<double>(), lc["p50"].get<int64_t>(), lc["p99"].get<int64_t>(), lc["max"].get<int64_t>());
  const auto& c = j["commands"];
  out +=
      fmt::format("  commands      ACT {}  PRE {}  PREA {}  RD {}  WR {}  REF {}  REFpb {}\n", c["ACT"].get<uint64_t>(),
                  c["PRE"].get<uint64_t>(), c["PREA"].get<uint64_t>(), c["RD"].get<uint64_t>(), c["WR"].get<uint64_t>(),
                  c["REF"].get<uint64_t>(), c["REFpb"].get<uint64_t>());
  const std::string refresh = m["refresh"].get<std::string>();
  out += fmt::format(
      "  refresh       {:.2f}% of bank time ({}: {} = {:.2f}%)\n", 100 * j["refresh_share"].get<double>(), refresh,
      refresh == "per_bank" ? "tRFCpb/tREFI" : "tRFC/tREFI", 100 * j["refresh_share_expected"].get<double>());
  return out;
}

int run(const std::vector<std::string>& args) {
  std::string memory, pattern = "seq", scope = "stack", engine = "systemc", bytes = "16MiB", request = "32", stride, trace;
  std::vector<std::string> sets;
  TrafficOptions o;
  bool json = false;
  po::options_description desc(std::string(kHbmBenchUsage) + "\noptions");
  desc.add_options()("help,h", "show this help")("memory", po::value(&memory)->value_name("FILE"),
                                                 "memory YAML (configs/memory/)")(
      "pattern", po::value(&pattern)->value_name("P"), "seq | random | strided | trace (default seq)")(
      "trace", po::value(&trace)->value_name("FILE"),
      "--pattern trace: the requests, a line each: R|W|LD|ST <address> (every request --request-bytes long)")(
      "bytes", po::value(&bytes)->value_name("N"), "bytes to move in total (default 16MiB)")(
      "request-bytes", po::value(&request)->value_name("N"), "bytes per request (default 32, one burst)")(
      "stride", po::value(&stride)->value_name("N"), "strided: bytes between requests")(
      "writes", po::value(&o.write_fraction)->value_name("F"), "share of requests that are writes, 0..1 (default 0)")(
      "outstanding", po::value(&o.outstanding)->value_name("N"),
      "requests in flight (default queue_depth x pseudo-channels)")("scope", po::value(&scope)->value_name("S"),
                                                                    "stack (default) | pc: one pseudo-channel alone")(
      "set", po::value(&sets)->value_name("KEY=VALUE")->composing(),
      "override a memory key, e.g. --set timing.tRFC=350ns --set controller.queue_depth=64 (repeatable)")(
      "seed", po::value(&o.seed)->value_name("N"), "random pattern and write mix seed (default 1)")(
      "engine", po::value(&engine)->value_name("E"), "systemc (default): the HbmModule; tlm: the same through its TLM-2.0 socket; direct: no kernel")(
      "json", po::bool_switch(&json), "print one JSON object instead of the table");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(desc).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw hbm_flag_error(e.what());
  }
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  if (memory.empty()) throw hbm_flag_error("--memory is required (see cstsim hbm-bench --help)");
  if (pattern == "seq")
    o.pattern = Pattern::Seq;
  else if (pattern == "random")
    o.pattern = Pattern::Random;
  else if (pattern == "strided")
    o.pattern = Pattern::Strided;
  else if (pattern == "trace")
    o.pattern = Pattern::Trace;
  else
    throw hbm_flag_error(fmt::format("--pattern: must be seq, random, strided or trace, got '{}'", pattern));
  if ((o.pattern == Pattern::Trace) != !trace.empty())
    throw hbm_flag_error(trace.empty() ? "--pattern trace needs --trace FILE" : "--trace: only with --pattern trace");
  if (o.pattern == Pattern::Trace)
    for (const char* flag : {"bytes", "writes", "seed"})
      if (vm.count(flag))
        throw hbm_flag_error(fmt::format("--{}: not with --pattern trace (the trace gives its requests and writes)", flag));
  if (scope != "stack" && scope != "pc") throw hbm_flag_error(fmt::format("--scope: must be stack or pc, got '{}'", scope));
  if (engine != "systemc" && engine != "tlm" && engine != "direct")
    throw hbm_flag_error(fmt::format("--engine: must be systemc, tlm or direct, got '{}'", engine));
  if (!(o.write_fraction >= 0 && o.write_fraction <= 1))
    throw hbm_flag_error(fmt::format("--writes: must be between 0 and 1, got {}", o.write_fraction));
  if (vm.count("outstanding") && (o.outstanding < 1 || o.outstanding > 1 << 20))
    throw hbm_flag_error(fmt::format("--outstanding: must be between 1 and 1048576, got {}", o.outstanding));
  o.total_bytes = parse_size("bytes", bytes);
  o.request_bytes = parse_size("request-bytes", request);
  if (!stride.empty()) {
    if (o.pattern != Pattern::Strided) throw hbm_flag_error("--stride: only with --pattern strided");
    o.stride = parse_size("stride", stride);
  }
  if (o.total_bytes > (uint64_t(1) << 40)) throw hbm_flag_error("--bytes: at most 1 TiB");

  HbmOverrides overrides;
  if (scope == "pc") {
    overrides.emplace_back("organization.channels", "1");
    overrides.emplace_back("organization.pseudo_channels", "1");
  }
  for (const std::string& item : sets) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError("--set", 0, item, "expected key=value");
    overrides.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  const HbmSpec spec = load_hbm_spec(memory, overrides);
  const uint64_t capacity = AddressMap(spec.org, spec.address_mapping).capacity();
  if (o.request_bytes > capacity) throw hbm_flag_error("--request-bytes: larger than the stack");
  if (o.pattern == Pattern::Trace) {
    o.trace = read_trace(trace, o.request_bytes, capacity);
    o.total_bytes = o.trace.size() * o.request_bytes;
    size_t writes = 0;
    for (const TraceRequest& t : o.trace) writes += t.write;
    o.write_fraction = double(writes) / double(o.trace.size());  // reported, not drawn
  }

  TrafficResult r;
  if (engine == "systemc") {
    r = run_traffic_systemc(spec, o);
  } else if (engine == "tlm") {
    r = run_traffic_tlm(spec, o);
  } else {
    HbmDevice dev(spec);
    r = run_traffic(dev, o);
  }
  const nlohmann::ordered_json j = to_json(spec, o, r, scope, engine);
  std::cout << (json ? j.dump(2) + "\n" : to_text(j));
  return 0;
}

}  // namespace

int hbm_bench_command(const std::vector<std::string>& args) {
  try {
    return run(args);
  } catch (const InputError& e) {
    std::cerr << "error: hbm-bench: " << e.what() << "\n";
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: hbm-bench: " << e.what() << "\n";
  } catch (const std::out_of_range& e) {
    std::cerr << "error: hbm-bench: " << e.what() << "\n";
  }
  return 2;
}

}  // namespace cstsim
