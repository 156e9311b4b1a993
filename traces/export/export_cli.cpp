#include "core/input_error.h"
#include "traces/export/export_cli.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "traces/reader.h"
#include "core/out_file.h"
#include "version.h"

namespace cstsim {
namespace fs = std::filesystem;

namespace {

constexpr const char* kUsage =
    "usage: cstsim export <format> <run-dir> [--out FILE]\n"
    "\n"
    "Converts the R(t) trace in <run-dir>/trace/ (see traces/FORMAT.md) for other tools.\n"
    "\n"
    "formats:\n"
    "  csv       one row per change record: cycle,time_s,resource,name,value\n"
    "            (default output <run-dir>/trace/rt.csv)\n"
    "  perfetto  Chrome trace-event JSON for ui.perfetto.dev: one counter track per\n"
    "            resource, one slice per layer (default <run-dir>/trace/perfetto.json)\n"
    "  vcd       Value Change Dump for GTKWave/Surfer: one 64-bit integer signal per\n"
    "            resource, scoped by owner module (default <run-dir>/trace/rt.vcd)\n"
    "\n"
    "options:\n"
    "  --out FILE   write FILE instead of the default (its directory must exist)\n"
    "  --force      replace FILE even if it is not an export of the same format\n"
    "  -h, --help   show this help\n"
    "\n"
    "The output appears only when complete, and replaces only an earlier export of the\n"
    "same format. Exit status: 0 ok, 2 bad usage, missing/unreadable trace, or an output\n"
    "that could not be written.\n";

// What each format's output begins with, to recognise an earlier export.
bool is_export_of(const std::string& format, std::string_view head) {
  if (format == "csv") return head.rfind("cycle,time_s,resource,name,value\n", 0) == 0;
  if (format == "perfetto") return head.rfind("{\"displayTimeUnit\"", 0) == 0 && head.find("\"generator\":\"cstsim ") != head.npos;
  return head.rfind("$date\n", 0) == 0 && head.find("$version\n  cstsim ") != head.npos;
}

// Bad usage or input: exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
std::string one_line(std::string_view text) { return InputError::one_line(std::string(text)); }

using io::OutFile;

// Opens <run-dir>/trace with errors that name what is missing.
std::unique_ptr<trace::TraceReader> open_trace(const fs::path& run_dir) {
  if (!fs::exists(run_dir)) throw UsageError(fmt::format("run directory {} does not exist", run_dir.string()));
  if (!fs::is_directory(run_dir)) throw UsageError(fmt::format("{} is not a run directory", run_dir.string()));
  const fs::path dir = run_dir / "trace";
  if (!fs::is_directory(dir)) throw UsageError(fmt::format("{}: no trace folder in this run directory", dir.string()));
  std::unique_ptr<trace::TraceReader> reader;
  try {
    reader = std::make_unique<trace::TraceReader>(dir);
  } catch (const std::logic_error& e) {  // std::stoll / class letters
    throw std::runtime_error(fmt::format("{}: malformed resources.csv or layers.csv ({})", dir.string(), e.what()));
  }
  const double period = reader->header().period_s;
  if (!(period > 0) || !std::isfinite(period))
    throw std::runtime_error(fmt::format("{}: bad clock period {}", (dir / "rt.bin").string(), period));
  return reader;
}

// Calls f(record) for every record, checking ids and order.
template <class F>
void stream_records(trace::TraceReader& reader, const fs::path& run_dir, F&& f) {
  const size_t n = reader.resources().size();
  trace::Record rec{};
  uint64_t prev = 0, i = 0;
  while (reader.next(rec)) {
    if (rec.resource >= n)
      throw std::runtime_error(fmt::format("{}: record {}: resource id {} out of range (resources.csv has {})",
                                           (run_dir / "trace" / "rt.bin").string(), i, rec.resource, n));
    if (rec.cycle < prev)
      throw std::runtime_error(fmt::format("{}: record {}: cycle {} before cycle {} (records must be in cycle order)",
                                           (run_dir / "trace" / "rt.bin").string(), i, rec.cycle, prev));
    prev = rec.cycle;
    ++i;
    f(rec);
  }
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", int(c));
        else out += c;
    }
  }
  return out + "\"";
}

// VCD identifier code for index i: base 93 over printable ASCII 33..126 without '$',
// so that no code can read as a keyword ($end, $dumpvars...) to a naive parser.
std::string vcd_code(size_t i) {
  std::string s;
  do {
    const char c = char(33 + i % 93);
    s += c >= '$' ? char(c + 1) : c;
    i /= 93;
  } while (i > 0);
  return s;
}

// VCD names may not contain whitespace; '.' is the hierarchy separator in viewers.
std::string vcd_name(std::string_view s) {
  std::string out;
  for (char c : s) out += (c == '.' || c <= ' ' || c > '~') ? '_' : c;
  return out.empty() ? "_" : out;
}

std::string vcd_binary(int64_t v) {
  auto u = uint64_t(v);  // two's complement for the (never expected) negative values
  if (u == 0) return "0";
  std::string s;
  while (u) {
    s += char('0' + (u & 1));
    u >>= 1;
  }
  return std::string(s.rbegin(), s.rend());
}

std::string now_text() {
  const std::time_t t = std::time(nullptr);
  char buf[64];
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

// The run directory's own name ("runs/a/" -> "a").
std::string run_name(const fs::path& run_dir) {
  fs::path p = fs::absolute(run_dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p.filename().string();
}

}  // namespace

namespace trace {

// ---------------------------------------------------------------- CSV

void export_csv(const fs::path& run_dir, const fs::path& out_path) {
  auto reader = open_trace(run_dir);
  const double period = reader->header().period_s;
  const auto& res = reader->resources();
  OutFile out(out_path);
  out.put("cycle,time_s,resource,name,value\n");
  stream_records(*reader, run_dir, [&](const Record& r) {
    out.print("{},{:.15g},{},{},{}\n", r.cycle, double(r.cycle) * period, r.resource, res[r.resource].name, r.value);
  });
  out.commit();
}

// ---------------------------------------------------------------- Perfetto

void export_perfetto(const fs::path& run_dir, const fs::path& out_path) {
  auto reader = open_trace(run_dir);
  const FileHeader& h = reader->header();
  const double us_per_cycle = h.period_s * 1e6;
  const auto ts = [&](uint64_t cycle) { return double(cycle) * us_per_cycle; };
  const auto& res = reader->resources();
  constexpr int kPid = 1, kLayerTid = 1;

  // One thread id per owner module, in order of first appearance.
  std::vector<std::string> owners;
  std::vector<int> tid(res.size());
  for (size_t i = 0; i < res.size(); ++i) {
    const std::string owner = res[i].owner.empty() ? "(no owner)" : res[i].owner;
    size_t k = 0;
    while (k < owners.size() && owners[k] != owner) ++k;
    if (k == owners.size()) owners.push_back(owner);
    tid[i] = kLayerTid + 1 + int(k);
  }
  // Fixed text around a counter event's ts and value.
  std::vector<std::string> head(res.size()), mid(res.size());
  for (size_t i = 0; i < res.size(); ++i) {
    head[i] = fmt::format(",\n{{\"ph\":\"C\",\"cat\":\"rt.{}\",\"name\":{},\"pid\":{},\"tid\":{},\"ts\":",
                          class_letter(res[i].cls), json_string(res[i].name), kPid, tid[i]);
    mid[i] = fmt::format(",\"args\":{{{}:", json_string(res[i].unit.empty() ? "value" : res[i].unit));
  }

  OutFile out(out_path);
  out.print("{{\"displayTimeUnit\":\"ns\",\n\"otherData\":{{\"generator\":\"cstsim {} export perfetto\","
            "\"run_dir\":{},\"clock_hz\":{},\"end_cycle\":{}}},\n\"traceEvents\":[\n",
            CSTSIM_VERSION, json_string(run_dir.string()), h.clock_hz, h.end_cycle);
  out.print("{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":{}}}}}", kPid,
            json_string("cstsim " + run_name(run_dir)));
  out.print(",\n{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"layers\"}}}}",
            kPid, kLayerTid);
  for (size_t k = 0; k < owners.size(); ++k) {
    out.print(",\n{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":{}}}}}", kPid,
              kLayerTid + 1 + int(k), json_string(owners[k]));
    out.print(",\n{{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":{},\"tid\":{},\"args\":{{\"sort_index\":{}}}}}",
              kPid, kLayerTid + 1 + int(k), k + 1);
  }
  out.print(",\n{{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":{},\"tid\":{},\"args\":{{\"sort_index\":0}}}}",
            kPid, kLayerTid);

  for (const LayerRow& l : reader->layers()) {
    const int64_t end = l.end_cycle + 1;  // layers.csv end is inclusive
    out.print(",\n{{\"ph\":\"X\",\"cat\":\"layer\",\"name\":{},\"pid\":{},\"tid\":{},\"ts\":{:.15g},\"dur\":{:.15g},"
              "\"args\":{{\"layer\":{},\"start_cycle\":{},\"end_cycle\":{}}}}}",
              json_string(l.name), kPid, kLayerTid, ts(uint64_t(l.start_cycle)),
              double(end - l.start_cycle) * us_per_cycle, l.index, l.start_cycle, l.end_cycle);
  }

  // Every resource is 0 from cycle 0 until its first record; the zero is emitted
  // only for resources without a record at cycle 0 (records are in cycle order).
  std::vector<int64_t> last(res.size(), 0);
  std::vector<bool> at_zero(res.size(), false);
  bool zeros_written = false;
  const auto write_zeros = [&] {
    for (size_t i = 0; i < res.size(); ++i)
      if (!at_zero[i]) {
        out.put(head[i]);
        out.put("0");
        out.put(mid[i]);
        out.put("0}}");
      }
    zeros_written = true;
  };
  stream_records(*reader, run_dir, [&](const Record& r) {
    if (!zeros_written) {
      if (r.cycle == 0) at_zero[r.resource] = true;
      else write_zeros();
    }
    out.put(head[r.resource]);
    out.print("{:.15g}", ts(r.cycle));
    out.put(mid[r.resource]);
    out.print("{}}}}}", r.value);
    last[r.resource] = r.value;
  });
  if (!zeros_written) write_zeros();
  // A final sample at end_cycle gives the last value its extent.
  for (size_t i = 0; i < res.size(); ++i) {
    out.put(head[i]);
    out.print("{:.15g}", ts(h.end_cycle));
    out.put(mid[i]);
    out.print("{}}}}}", last[i]);
  }
  out.put("\n]}\n");
  out.commit();
}

// ---------------------------------------------------------------- VCD

uint64_t VcdTimebase::time_of(uint64_t cycle) const {
  return exact ? cycle * per_cycle : uint64_t(std::llround(double(cycle) * units_per_cycle));
}

VcdTimebase vcd_timebase(double period_s) {
  static const char* kUnits[] = {"fs", "ps", "ns", "us", "ms", "s"};
  VcdTimebase tb;
  const double fs_per_cycle = period_s * 1e15;
  const double n = std::round(fs_per_cycle);
  if (n >= 1 && n < 1e15 && std::fabs(fs_per_cycle - n) <= 1e-9 * fs_per_cycle) {
    auto q = uint64_t(n);
    int k = 0;  // q = per_cycle * 10^k fs
    while (k < 15 && q % 10 == 0) {
      q /= 10;
      ++k;
    }
    static const char* kMult[] = {"1", "10", "100"};
    tb.unit = fmt::format("{} {}", kMult[k % 3], kUnits[k / 3]);
    tb.exact = true;
    tb.per_cycle = q;
    tb.units_per_cycle = double(q);
    return tb;
  }
  // Not a whole number of fs (e.g. 700 MHz): 1 ps resolution, or 1 fs above 100 GHz.
  const bool ps = period_s >= 10e-12;
  tb.unit = ps ? "1 ps" : "1 fs";
  tb.units_per_cycle = period_s * (ps ? 1e12 : 1e15);
  return tb;
}

void export_vcd(const fs::path& run_dir, const fs::path& out_path) {
  auto reader = open_trace(run_dir);
  const FileHeader& h = reader->header();
  const VcdTimebase tb = vcd_timebase(h.period_s);
  const auto& res = reader->resources();
  const auto& layers = reader->layers();
  const std::string layer_code = vcd_code(res.size());

  OutFile out(out_path);
  out.print("$date\n  {}\n$end\n", now_text());
  out.print("$version\n  cstsim {} export vcd\n$end\n", CSTSIM_VERSION);
  out.print("$comment\n  run {}; clock {} Hz (period {} s); one time unit = {}; cycle c starts at {}; "
            "the trace covers cycles [0, {})\n$end\n",
            run_dir.string(), h.clock_hz, h.period_s, tb.unit,
            tb.exact ? fmt::format("time c*{}", tb.per_cycle) : fmt::format("time round(c*{:.15g})", tb.units_per_cycle),
            h.end_cycle);
  out.print("$timescale {} $end\n", tb.unit);

  // Scopes: cstsim, then one module per owner path component ("top.array" -> top/array).
  struct Scope {
    std::string name;
    std::vector<Scope> children;
    std::vector<size_t> vars;
  };
  Scope root{"cstsim", {}, {}};
  for (size_t i = 0; i < res.size(); ++i) {
    Scope* s = &root;
    std::string_view owner = res[i].owner;
    if (owner.empty()) owner = "unowned";
    while (!owner.empty()) {
      const size_t dot = owner.find('.');
      const std::string part = vcd_name(owner.substr(0, dot));
      owner = dot == std::string_view::npos ? std::string_view() : owner.substr(dot + 1);
      auto it = std::find_if(s->children.begin(), s->children.end(), [&](const Scope& c) { return c.name == part; });
      if (it == s->children.end()) {
        s->children.push_back({part, {}, {}});
        it = std::prev(s->children.end());
      }
      s = &*it;
    }
    s->vars.push_back(i);
  }
  const auto write_scope = [&](const Scope& s, auto& self) -> void {
    out.print("$scope module {} $end\n", s.name);
    if (&s == &root) out.print("$var integer 32 {} layer $end\n", layer_code);
    for (size_t i : s.vars) out.print("$var integer 64 {} {} $end\n", vcd_code(i), vcd_name(res[i].name));
    for (const Scope& c : s.children) self(c, self);
    out.put("$upscope $end\n");
  };
  write_scope(root, write_scope);
  out.put("$enddefinitions $end\n");

  // Initial values: 0, or the value a record sets at cycle 0 (folded into $dumpvars).
  std::vector<int64_t> initial(res.size(), 0);
  size_t next_layer = 0;
  bool dumped = false;
  uint64_t block_cycle = 0;  // cycle of the open #time block
  const auto dump = [&] {
    out.put("#0\n$dumpvars\n");
    std::string layer_value = "bx";
    while (next_layer < layers.size() && layers[next_layer].start_cycle <= 0)
      layer_value = "b" + vcd_binary(layers[next_layer++].index);
    out.print("{} {}\n", layer_value, layer_code);
    for (size_t i = 0; i < res.size(); ++i) out.print("b{} {}\n", vcd_binary(initial[i]), vcd_code(i));
    out.put("$end\n");
    dumped = true;
  };
  const auto open_block = [&](uint64_t cycle) {
    if (cycle == block_cycle) return;
    out.print("#{}\n", tb.time_of(cycle));
    block_cycle = cycle;
  };
  const auto layers_upto = [&](uint64_t cycle) {  // layer changes at or before `cycle`
    for (; next_layer < layers.size() && uint64_t(layers[next_layer].start_cycle) <= cycle; ++next_layer) {
      open_block(uint64_t(layers[next_layer].start_cycle));
      out.print("b{} {}\n", vcd_binary(layers[next_layer].index), layer_code);
    }
  };
  stream_records(*reader, run_dir, [&](const Record& r) {
    if (!dumped) {
      if (r.cycle == 0) {
        initial[r.resource] = r.value;
        return;
      }
      dump();
    }
    layers_upto(r.cycle);
    open_block(r.cycle);
    out.print("b{} {}\n", vcd_binary(r.value), vcd_code(r.resource));
  });
  if (!dumped) dump();
  if (h.end_cycle > 0) layers_upto(h.end_cycle - 1);
  // A last timestamp at end_cycle gives the final values their extent.
  if (h.end_cycle > block_cycle) out.print("#{}\n", tb.time_of(h.end_cycle));
  out.commit();
}

}  // namespace trace

// ---------------------------------------------------------------- command

int export_command(const std::vector<std::string>& args) {
  try {
    for (const std::string& a : args)
      if (a == "--help" || a == "-h") {
        std::cout << kUsage;
        return 0;
      }
    if (args.empty()) throw UsageError("missing format (csv, perfetto or vcd; see cstsim export --help)");
    const std::string format = args[0];
    const char* default_name = format == "csv" ? "rt.csv"
                               : format == "perfetto" ? "perfetto.json"
                               : format == "vcd"      ? "rt.vcd"
                                                      : nullptr;
    if (!default_name) {
      if (!format.empty() && format[0] == '-') throw UsageError(fmt::format("unknown option '{}' (see cstsim export --help)", format));
      throw UsageError(fmt::format("unknown format '{}' (formats: csv, perfetto, vcd)", format));
    }
    std::vector<std::string> positional;
    std::string out;
    bool have_out = false, force = false;
    for (size_t i = 1; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "--out" || a == "-o") {
        if (i + 1 >= args.size()) throw UsageError(fmt::format("{}: {} needs a file name", format, a));
        out = args[++i];
        have_out = true;
      } else if (a == "--force") {
        force = true;
      } else if (a.rfind("--out=", 0) == 0) {
        out = a.substr(6);
        have_out = true;
      } else if (a.size() > 1 && a[0] == '-') {
        throw UsageError(fmt::format("{}: unknown option '{}' (see cstsim export --help)", format, a));
      } else {
        positional.push_back(a);
      }
    }
    if (positional.empty()) throw UsageError(fmt::format("{}: missing <run-dir>", format));
    if (positional.size() > 1) throw UsageError(fmt::format("{}: unexpected argument '{}'", format, positional[1]));
    if (have_out && out.empty()) throw UsageError(fmt::format("{}: --out needs a file name", format));
    const fs::path run_dir = positional[0];
    const fs::path out_path = have_out ? fs::path(out) : run_dir / "trace" / default_name;
    if (have_out) {
      const fs::path parent = out_path.parent_path().empty() ? fs::path(".") : out_path.parent_path();
      if (!fs::is_directory(parent))
        throw UsageError(fmt::format("{}: --out {}: directory {} does not exist", format, out, parent.string()));
      if (fs::is_directory(out_path)) throw UsageError(fmt::format("{}: --out {} is a directory", format, out));
      std::error_code ec;
      const fs::path target = fs::weakly_canonical(out_path, ec);
      for (const char* input : {"rt.bin", "resources.csv", "layers.csv", "actions.csv"}) {
        std::error_code ec2;
        if (!ec && fs::exists(run_dir / "trace" / input) &&
            fs::weakly_canonical(run_dir / "trace" / input, ec2) == target)
          throw UsageError(fmt::format("{}: --out {} would overwrite the trace's {}", format, out, input));
      }
    }
    if (fs::is_directory(run_dir / "trace"))
      io::check_replaceable(out_path, "--out", force, [&](std::string_view head) { return is_export_of(format, head); },
                            "a cstsim " + format + " export");
    if (format == "csv") trace::export_csv(run_dir, out_path);
    else if (format == "perfetto") trace::export_perfetto(run_dir, out_path);
    else trace::export_vcd(run_dir, out_path);
    return 0;
  } catch (const std::exception& e) {  // usage errors, unreadable traces, outputs that cannot be written
    std::cerr << "error: export: " << one_line(e.what()) << "\n";
    return 2;
  }
}

}  // namespace cstsim
