#include "traces/export/export_cli.h"

#include <iostream>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "core/input_error.h"
#include "core/out_file.h"
#include "traces/export/trace_input.h"

namespace cstsim {
namespace fs = std::filesystem;

namespace {


constexpr const char* kExportUsage =
    "usage: cstsim export <format> <run-dir> [--out FILE]\n"
    "\n"
    "Converts the R(t) trace in <run-dir>/trace/ (see traces/FORMAT.md) for other tools.\n"
    "\n"
    "formats:\n"
    "  csv       one row per change record: cycle,time_s,resource,name,value\n"
    "            (default output <run-dir>/trace/rt.csv)\n"
    "  perfetto  for ui.perfetto.dev: a process per owner module with a counter track per\n"
    "            resource, one slice per layer. Perfetto's protobuf trace (default\n"
    "            <run-dir>/trace/perfetto.pftrace) above 1,000,000 trace records, Chrome\n"
    "            trace-event JSON (<run-dir>/trace/perfetto.json) below; --format picks one\n"
    "  vcd       Value Change Dump for GTKWave/Surfer: one 64-bit integer signal per\n"
    "            resource, scoped by owner module (default <run-dir>/trace/rt.vcd)\n"
    "\n"
    "options:\n"
    "  --out FILE   write FILE instead of the default (its directory must exist)\n"
    "  --force      replace FILE even if it is not an export of the same format\n"
    "  --format F   perfetto only: json or proto (default: by the trace's size, above)\n"
    "  -h, --help   show this help\n"
    "\n"
    "The output appears only when complete, and replaces only an earlier export of the\n"
    "same format. Exit status: 0 ok, 2 bad usage, missing/unreadable trace, or an output\n"
    "that could not be written.\n";

// What each format's output begins with, to recognise an earlier export.
bool is_export_of(const std::string& format, std::string_view head) {
  if (format == "csv") return head.rfind("cycle,time_s,resource,name,value\n", 0) == 0;
  if (format == "perfetto")
    return (head.rfind("{\"displayTimeUnit\"", 0) == 0 && head.find("\"generator\":\"cstsim ") != head.npos) ||
           (head.rfind("\x0a", 0) == 0 && head.find("cstsim export perfetto: ") != head.npos);
  return head.rfind("$date\n", 0) == 0 && head.find("$version\n  cstsim ") != head.npos;
}

std::string one_line(std::string_view text) { return InputError::one_line(std::string(text)); }

// Bad usage: printed as "error: export: <what>" where export_command catches it.
InputError export_usage_error(const std::string& what) { return InputError::usage("", "", what); }

}  // namespace

// ---------------------------------------------------------------- command

int export_command(const std::vector<std::string>& args) {
  try {
    for (const std::string& a : args)
      if (a == "--help" || a == "-h") {
        std::cout << kExportUsage;
        return 0;
      }
    if (args.empty()) throw export_usage_error("missing format (csv, perfetto or vcd; see cstsim export --help)");
    const std::string format = args[0];
    const char* default_name = format == "csv" ? "rt.csv"
                               : format == "perfetto" ? "perfetto.json"
                               : format == "vcd"      ? "rt.vcd"
                                                      : nullptr;
    if (!default_name) {
      if (!format.empty() && format[0] == '-') throw export_usage_error(fmt::format("unknown option '{}' (see cstsim export --help)", format));
      throw export_usage_error(fmt::format("unknown format '{}' (formats: csv, perfetto, vcd)", format));
    }
    std::vector<std::string> positional;
    std::string out, perfetto_form;
    bool have_out = false, force = false;
    for (size_t i = 1; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "--out" || a == "-o") {
        if (i + 1 >= args.size()) throw export_usage_error(fmt::format("{}: {} needs a file name", format, a));
        out = args[++i];
        have_out = true;
      } else if (a == "--force") {
        force = true;
      } else if (a == "--format") {
        if (format != "perfetto") throw export_usage_error(fmt::format("{}: --format is for perfetto only", format));
        if (i + 1 >= args.size() || (args[i + 1] != "json" && args[i + 1] != "proto"))
          throw export_usage_error("perfetto: --format needs json or proto");
        perfetto_form = args[++i];
      } else if (a.rfind("--out=", 0) == 0) {
        out = a.substr(6);
        have_out = true;
      } else if (a.size() > 1 && a[0] == '-') {
        throw export_usage_error(fmt::format("{}: unknown option '{}' (see cstsim export --help)", format, a));
      } else {
        positional.push_back(a);
      }
    }
    if (positional.empty()) throw export_usage_error(fmt::format("{}: missing <run-dir>", format));
    if (positional.size() > 1) throw export_usage_error(fmt::format("{}: unexpected argument '{}'", format, positional[1]));
    if (have_out && out.empty()) throw export_usage_error(fmt::format("{}: --out needs a file name", format));
    const fs::path run_dir = positional[0];
    if (format == "perfetto" && perfetto_form.empty())  // by size: the JSON grows ~100 bytes a record
      perfetto_form = fs::is_directory(run_dir / "trace") && trace::open_trace(run_dir)->header().record_count >
                                                                  trace::kPerfettoJsonMaxRecords
                          ? "proto"
                          : "json";
    if (perfetto_form == "proto") default_name = "perfetto.pftrace";
    const fs::path out_path = have_out ? fs::path(out) : run_dir / "trace" / default_name;
    if (have_out) {
      const fs::path parent = out_path.parent_path().empty() ? fs::path(".") : out_path.parent_path();
      if (!fs::is_directory(parent))
        throw export_usage_error(fmt::format("{}: --out {}: directory {} does not exist", format, out, parent.string()));
      if (fs::is_directory(out_path)) throw export_usage_error(fmt::format("{}: --out {} is a directory", format, out));
      std::error_code ec;
      const fs::path target = fs::weakly_canonical(out_path, ec);
      for (const char* input : {"rt.bin", "resources.csv", "layers.csv", "actions.csv"}) {
        std::error_code ec2;
        if (!ec && fs::exists(run_dir / "trace" / input) &&
            fs::weakly_canonical(run_dir / "trace" / input, ec2) == target)
          throw export_usage_error(fmt::format("{}: --out {} would overwrite the trace's {}", format, out, input));
      }
    }
    if (fs::is_directory(run_dir / "trace"))
      io::check_replaceable(out_path, "--out", force, [&](std::string_view head) { return is_export_of(format, head); },
                            "a cstsim " + format + " export");
    if (format == "csv") trace::export_csv(run_dir, out_path);
    else if (format == "perfetto" && perfetto_form == "proto") trace::export_perfetto_proto(run_dir, out_path);
    else if (format == "perfetto") trace::export_perfetto(run_dir, out_path);
    else trace::export_vcd(run_dir, out_path);
    std::error_code size_error;  // say what was written, and how big it is
    const auto bytes = fs::file_size(out_path, size_error);
    std::cout << fmt::format("wrote {} ({} export, {} bytes)\n", out_path.string(),
                             format == "perfetto" ? "perfetto " + perfetto_form : format,
                             size_error ? std::string("?") : std::to_string(bytes));
    return 0;
  } catch (const std::exception& e) {  // usage errors, unreadable traces, outputs that cannot be written
    std::cerr << "error: export: " << one_line(e.what()) << "\n";
    return 2;
  }
}

}  // namespace cstsim
