#pragma once
// Printing of the ledger: number formats (the seeds' units and decimals), the text
// tables, and the --json document. run_ledger() is ledger_command() with its streams
// made explicit, so tests can capture both.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/ledger/machine.h"
#include "sim/ledger/ops.h"

namespace cstsim::ledger {

// Seed 003 columns.
std::string format_flops(double flops);      // "137 GFLOP", "0.0168 GFLOP", "0" (3 significant digits)
std::string format_bytes(double bytes);      // "100.66 MB", "6.58 GB"
std::string format_ai(double ai);            // "1365.33 F/B"
std::string format_time(double seconds);     // "188.5 us", "1.461 ms"
std::string format_bound(const Bound& b);    // "memory-bound" / "compute-bound"
std::string format_peak(const Machine& m);   // "729.3 TFLOPS", or "91.75 TOPS" for an arch
std::string format_bandwidth(double bytes_per_s);  // "4502 GB/s"
std::string format_balance(double flop_per_byte);  // "162.0 FLOP/Byte"

// Seed 002 fields.
std::string format_mb(double bytes);          // "20.97" (decimal MB, 2 decimals)
std::string format_mflop(double flops);       // "2.10"
std::string format_ai3(double ai);            // "0.100"

// What one invocation prints. Rows and pairs are already filtered.
struct Report {
  Machine machine;
  double link_bandwidth = 0;  // bytes/s pricing Traffic::Link rows
  bool show003 = true, show002 = true;
  std::vector<Row> rows003;
  std::vector<Pair> pairs002;
  Shapes003 shapes003;
  Shapes002 shapes002;
  std::vector<std::string> op_filter;
};

// One line each, without the newline.
std::string row003_line(const Row& row, const Report& r, size_t label_width);
std::string row002_line(const Row& row, size_t label_width);
std::string ratio_line(const Pair& pair);
std::string range_line(const std::vector<Pair>& pairs);

std::string machine_header(const Machine& m);  // the "Machine model" block of seed 003
std::string render_text(const Report& r);
nlohmann::ordered_json render_json(const Report& r);

// ledger_command() with explicit streams (defined in ledger_cli.cpp).
int run_ledger(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace cstsim::ledger
