#include "sim/ledger/report.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "version.h"

namespace cstsim::ledger {
namespace {

const std::string kRule(100, '=');
const std::string kThin(100, '-');

// Integral values below 2^53 print as JSON integers, the rest as doubles.
nlohmann::ordered_json number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0)
    return static_cast<int64_t>(v);
  return v;
}

nlohmann::ordered_json row_json(const Row& row, const Report& r, const std::string& pair) {
  const Bound b = roofline(row, r.machine.peak_flops, r.machine.bandwidth, r.link_bandwidth);
  nlohmann::ordered_json j;
  j["suite"] = row.suite;
  j["id"] = row.id;
  if (!pair.empty()) j["pair"] = pair;
  j["name"] = row.label;
  j["kernels"] = nlohmann::ordered_json::array();
  for (const Kernel& k : row.kernels)
    j["kernels"].push_back({{"name", k.name}, {"flops", number(k.flops)}, {"bytes", number(k.bytes)}});
  j["flops"] = number(row.flops());
  j["bytes"] = number(row.bytes());
  j["ai"] = row.intensity();
  j["traffic"] = row.traffic == Traffic::Link ? "link" : "memory";
  j["memory_time_s"] = b.memory_s;
  j["compute_time_s"] = b.compute_s;
  j["time_bound_s"] = b.time_s();
  j["bound"] = b.compute_bound() ? "compute" : "memory";
  return j;
}

nlohmann::ordered_json machine_json(const Machine& m, double link_bandwidth) {
  nlohmann::ordered_json j;
  j["id"] = m.id;
  j["description"] = m.description;
  j["kind"] = m.from_arch ? "arch" : "profile";
  j["peak_flops_per_s"] = m.peak_flops;
  j["bandwidth_bytes_per_s"] = m.bandwidth;
  j["balance_flop_per_byte"] = m.balance();
  j["link_bandwidth_bytes_per_s"] = link_bandwidth;
  j["compute_note"] = m.compute_note;
  if (!m.from_arch) {
    j["spec"] = {{"peak_flops_per_s", m.spec_peak_flops}, {"bandwidth_bytes_per_s", m.spec_bandwidth}};
    j["calibration"] = {{"compute", m.compute_factor}, {"bandwidth", m.bandwidth_factor}};
  } else {
    j["arch"] = {{"file", m.arch_file},
                 {"rows", m.arch_rows},
                 {"cols", m.arch_cols},
                 {"clock_hz", m.arch_clock_hz},
                 {"operand_bits", m.arch_operand_bits}};
  }
  j["bandwidth_overridden"] = m.bandwidth_overridden;
  j["source"] = m.source;
  return j;
}

nlohmann::ordered_json dtype_json(const DType& t) { return t.name; }

nlohmann::ordered_json shapes003_json(const Shapes003& s) {
  return {{"elements", s.elements},   {"dtype", dtype_json(s.dtype)},
          {"ln_shape", {s.ln_rows, s.ln_cols}},
          {"gemm", {s.gemm_m, s.gemm_n, s.gemm_k}},
          {"batch", s.batch},         {"seq_len", s.seq_len},
          {"heads", s.heads},         {"head_dim", s.head_dim},
          {"kv_len", s.kv_len},       {"params", s.params},
          {"state_dtype", dtype_json(s.state_dtype)}, {"grad_dtype", dtype_json(s.grad_dtype)},
          {"world", s.world}};
}

nlohmann::ordered_json shapes002_json(const Shapes002& s) {
  return {{"ew_elements", s.ew_elements},
          {"ew_dtype", dtype_json(s.ew_dtype)},
          {"norm_shape", {s.norm_rows, s.norm_cols}},
          {"norm_dtype", dtype_json(s.norm_dtype)},
          {"rope_shape", {s.rope_tokens, s.rope_heads, s.rope_dim}},
          {"rope_dtype", dtype_json(s.rope_dtype)},
          {"fused_shape", {s.fused_rows, s.fused_cols}},
          {"fused_rope_dim", s.fused_rope_dim},
          {"fused_dtype", dtype_json(s.fused_dtype)}};
}

// Word-wraps `text` at `width` columns; continuation lines are indented by `indent`.
std::string wrap(const std::string& text, size_t width, size_t indent) {
  std::string out, line;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(pos, end - pos);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line = std::string(indent, ' ') + word;
    } else {
      line += (line.empty() ? "" : " ") + word;
    }
    pos = end + 1;
  }
  return out + line + "\n";
}

std::pair<double, double> ai_range(const std::vector<Pair>& pairs) {
  double lo = INFINITY, hi = -INFINITY;
  for (const Pair& p : pairs)
    for (const Row* row : {&p.unfused, &p.fused}) {
      lo = std::min(lo, row->intensity());
      hi = std::max(hi, row->intensity());
    }
  return {lo, hi};
}

std::string text003(const Report& r) {
  std::string out = machine_header(r.machine);
  out += "Operator ledger (minimum bytes; time bound = max(memory time, compute time))\n" + kThin + "\n";
  size_t width = 0;
  for (const Row& row : r.rows003) width = std::max(width, row.label.size());
  for (const Row& row : r.rows003) out += row003_line(row, r, width) + "\n";
  out += kRule + "\n";
  out += "Lower bounds, not measurements: each input is read once and each output written once; an\n"
         "intermediate counts only where the row says it lands in memory. No cache hits, launch overhead\n"
         "or tail effects. Transcendentals count 1 FLOP.\n";
  const bool has_link = std::any_of(r.rows003.begin(), r.rows003.end(),
                                    [](const Row& row) { return row.traffic == Traffic::Link; });
  if (has_link)
    out += fmt::format("all-reduce: bytes sent per rank, priced at {} ({}).\n", format_bandwidth(r.link_bandwidth),
                       r.link_bandwidth == r.machine.bandwidth ? "the memory bandwidth, as in seed 003; see --link-bandwidth"
                                                               : "--link-bandwidth");
  return out;
}

std::string text002(const Report& r) {
  const Shapes002& s = r.shapes002;
  std::string out = kRule + "\n";
  out += "Fused vs unfused memory ledger (lower bound; one op per kernel vs one fused kernel)\n";
  out += fmt::format(
      "shapes: elementwise N={} {}; norms {}x{} {}; RoPE {} tokens x {} heads x rope_dim {} {}; "
      "RMSNorm+RoPE+quant {}x{} rope_dim {} {} -> int8\n",
      s.ew_elements, s.ew_dtype.name, s.norm_rows, s.norm_cols, s.norm_dtype.name, s.rope_tokens, s.rope_heads,
      s.rope_dim, s.rope_dtype.name, s.fused_rows, s.fused_cols, s.fused_rope_dim, s.fused_dtype.name);
  out += kThin + "\n";
  size_t width = 0;
  for (const Pair& p : r.pairs002) width = std::max({width, p.unfused.label.size(), p.fused.label.size()});
  for (const Pair& p : r.pairs002) {
    out += row002_line(p.unfused, width) + "\n";
    out += row002_line(p.fused, width) + "\n";
    out += ratio_line(p) + "\n";
  }
  out += range_line(r.pairs002) + "\n";
  out += kRule + "\n";
  return out;
}

}  // namespace

std::string format_flops(double flops) {
  if (flops == 0) return "0";
  if (flops >= 999.5e12) return fmt::format("{:.3g} PFLOP", flops / 1e15);
  if (flops >= 999.5e9) return fmt::format("{:.3g} TFLOP", flops / 1e12);
  if (flops >= 1e6) return fmt::format("{:.3g} GFLOP", flops / 1e9);
  if (flops >= 1e3) return fmt::format("{:.3g} MFLOP", flops / 1e6);
  return fmt::format("{:.0f} FLOP", flops);
}

std::string format_bytes(double bytes) {
  if (bytes >= 1e12) return fmt::format("{:.2f} TB", bytes / 1e12);
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.2f} MB", bytes / 1e6);
  if (bytes >= 1e3) return fmt::format("{:.2f} KB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);
}

std::string format_ai(double ai) { return fmt::format("{:.2f} F/B", ai); }

std::string format_time(double s) {
  if (s < 1e-6) return fmt::format("{:.1f} ns", s * 1e9);
  if (s < 1e-3) return fmt::format("{:.1f} us", s * 1e6);
  if (s < 1) return fmt::format("{:.3f} ms", s * 1e3);
  return fmt::format("{:.3f} s", s);
}

std::string format_bound(const Bound& b) { return b.compute_bound() ? "compute-bound" : "memory-bound"; }

std::string format_peak(const Machine& m) {
  if (m.from_arch) return fmt::format("{:.2f} TOPS", m.peak_flops / 1e12);
  return fmt::format("{:.1f} TFLOPS", m.peak_flops / 1e12);
}

std::string format_bandwidth(double bytes_per_s) {
  const double gbps = bytes_per_s / 1e9;
  return gbps >= 100 ? fmt::format("{:.0f} GB/s", gbps) : fmt::format("{:.3g} GB/s", gbps);
}

std::string format_balance(double flop_per_byte) { return fmt::format("{:.1f} FLOP/Byte", flop_per_byte); }

std::string format_mb(double bytes) { return fmt::format("{:.2f}", bytes / 1e6); }
std::string format_mflop(double flops) { return fmt::format("{:.2f}", flops / 1e6); }
std::string format_ai3(double ai) { return fmt::format("{:.3f}", ai); }

std::string row003_line(const Row& row, const Report& r, size_t label_width) {
  const Bound b = roofline(row, r.machine.peak_flops, r.machine.bandwidth, r.link_bandwidth);
  return fmt::format("{:<{}}  {:>12}  {:>10}  {:>12}  {:>10}  {}", row.label, label_width, format_flops(row.flops()),
                     format_bytes(row.bytes()), format_ai(row.intensity()), format_time(b.time_s()), format_bound(b));
}

std::string row002_line(const Row& row, size_t label_width) {
  return fmt::format("{:<{}}  kernels={} moved={:>7} MB flops={:>7} MFLOP AI={:>6} FLOP/Byte", row.label,
                     label_width, row.kernels.size(), format_mb(row.bytes()), format_mflop(row.flops()),
                     format_ai3(row.intensity()));
}

std::string ratio_line(const Pair& pair) { return fmt::format("  \u2192 bytes-moved ratio {:.2f}\u00d7", pair.bytes_ratio()); }

std::string range_line(const std::vector<Pair>& pairs) {
  const auto [lo, hi] = ai_range(pairs);
  const std::string schemes = pairs.size() == 1 ? "both schemes" : fmt::format("all {} schemes", 2 * pairs.size());
  return fmt::format("The arithmetic intensity of {} falls within {:.3f} \u2013 {:.3f} FLOP/Byte.", schemes, lo, hi);
}

std::string machine_header(const Machine& m) {
  std::string out = kRule + "\nMachine model\n" + kThin + "\n";
  out += fmt::format("profile         : {}\n", m.description);
  out += fmt::format("peak compute    : {} ({})\n", format_peak(m), m.compute_note);
  out += fmt::format("peak bandwidth  : {}{}\n", format_bandwidth(m.bandwidth),
                     m.bandwidth_overridden ? " (from --bandwidth)" : "");
  out += fmt::format("machine balance : {}\n", format_balance(m.balance()));
  out += wrap("source          : " + m.source, kRule.size(), 18);
  out += kRule + "\n";
  return out;
}

std::string render_text(const Report& r) {
  std::string out;
  if (r.show003) out += text003(r);
  if (r.show002) out += text002(r);
  return out;
}

nlohmann::ordered_json render_json(const Report& r) {
  nlohmann::ordered_json j;
  j["tool"] = "cstsim ledger";
  j["version"] = CSTSIM_VERSION;
  j["machine"] = machine_json(r.machine, r.link_bandwidth);
  nlohmann::ordered_json inputs;
  inputs["suites"] = nlohmann::ordered_json::array();
  if (r.show003) inputs["suites"].push_back("003");
  if (r.show002) inputs["suites"].push_back("002");
  inputs["ops"] = r.op_filter;
  if (r.show003) inputs["shapes_003"] = shapes003_json(r.shapes003);
  if (r.show002) inputs["shapes_002"] = shapes002_json(r.shapes002);
  j["inputs"] = inputs;
  j["rows"] = nlohmann::ordered_json::array();
  if (r.show003)
    for (const Row& row : r.rows003) j["rows"].push_back(row_json(row, r, ""));
  if (r.show002) {
    for (const Pair& p : r.pairs002) {
      j["rows"].push_back(row_json(p.unfused, r, p.id));
      j["rows"].push_back(row_json(p.fused, r, p.id));
    }
    j["pairs"] = nlohmann::ordered_json::array();
    for (const Pair& p : r.pairs002)
      j["pairs"].push_back(
          {{"id", p.id}, {"unfused", p.unfused.id}, {"fused", p.fused.id}, {"bytes_ratio", p.bytes_ratio()}});
    const auto [lo, hi] = ai_range(r.pairs002);
    j["ai_range_002"] = {{"schemes", 2 * r.pairs002.size()}, {"min", lo}, {"max", hi}};
  }
  return j;
}

}  // namespace cstsim::ledger
