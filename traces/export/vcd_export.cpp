// `cstsim export vcd`: a Value Change Dump, one 64-bit signal per resource.
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "core/out_file.h"
#include "traces/export/export_cli.h"
#include "traces/export/exporter.h"
#include "traces/export/trace_input.h"
#include "version.h"

namespace cstsim::trace {
namespace fs = std::filesystem;
namespace {

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

// The run as seen from the VCD's directory: the header names it without the absolute path or the
// shell's current directory, so two exports of one run to one place are the same bytes.
std::string run_seen_from(const fs::path& run_dir, const fs::path& out_path) {
  std::error_code ec;
  const fs::path run = fs::weakly_canonical(fs::absolute(run_dir), ec);
  const fs::path at = fs::weakly_canonical(fs::absolute(out_path).parent_path(), ec);
  const fs::path rel = ec ? fs::path() : run.lexically_relative(at);
  return rel.empty() ? run_dir.filename().string() : rel.string();
}

}  // namespace

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

  io::OutFile out(out_path);
  // No $date (optional in VCD): the file depends on the run only, not on when it was exported.
  out.print("$version\n  cstsim {} export vcd\n$end\n", CSTSIM_VERSION);
  out.print("$comment\n  run {} (seen from this file's directory); clock {} Hz (period {} s); one time unit = {}; cycle c starts at {}; "
            "the trace covers cycles [0, {})\n$end\n",
            run_seen_from(run_dir, out_path), h.clock_hz, h.period_s, tb.unit,
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

namespace {
class VcdExporter final : public IExporter {
 public:
  std::string help() const override {
    return "Value Change Dump for GTKWave/Surfer: one 64-bit integer signal per\n"
           "resource, scoped by owner module (default <run-dir>/trace/rt.vcd)";
  }
  std::string default_file(const std::string&) const override { return "rt.vcd"; }
  bool recognises(std::string_view head) const override {
    return head.rfind("$version\n  cstsim ", 0) == 0;  // what export_vcd begins with (no $date)
  }
  void write(const fs::path& run_dir, const fs::path& out, const std::string&) const override {
    export_vcd(run_dir, out);
  }
};
}  // namespace

CSTSIM_REGISTER(IExporter, VcdExporter, "vcd")

}  // namespace cstsim::trace
