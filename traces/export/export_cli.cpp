#include "traces/export/export_cli.h"

#include <algorithm>
#include <iostream>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "core/input_error.h"
#include "core/out_file.h"
#include "traces/export/exporter.h"
#include "traces/export/trace_input.h"

namespace cstsim {
namespace fs = std::filesystem;

namespace {

// `cstsim export --help`: the formats' paragraphs and their --format lines come from the
// registered exporters (exporter.h).
std::string export_usage() {
  std::string text =
      "usage: cstsim export <format> <run-dir> [--out FILE]\n"
      "\n"
      "Converts the R(t) trace in <run-dir>/trace/ (see traces/FORMAT.md) for other tools.\n"
      "\n"
      "formats:\n";
  for (const std::string& name : trace::exporter_names()) {
    const std::string help = trace::exporter(name).help();
    size_t at = 0;
    for (bool first = true; at <= help.size(); first = false) {
      const size_t nl = std::min(help.find('\n', at), help.size());
      text += fmt::format("  {:<9} {}\n", first ? name : "", help.substr(at, nl - at));
      at = nl + 1;
    }
  }
  text +=
      "\n"
      "options:\n"
      "  --out FILE   write FILE instead of the default (its directory must exist)\n"
      "  --force      replace FILE even if it is not an export of the same format\n";
  for (const std::string& name : trace::exporter_names())
    if (!trace::exporter(name).forms().empty())
      text += fmt::format("  --format F   {} only: {}\n", name, trace::exporter(name).forms_help());
  text +=
      "  -h, --help   show this help\n"
      "\n"
      "The output appears only when complete, and replaces only an earlier export of the\n"
      "same format. Exit status: 0 ok, 2 bad usage, missing/unreadable trace, or an output\n"
      "that could not be written.\n";
  return text;
}

// "a, b or c".
std::string one_of(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  return out;
}

// The formats that take --format, for its error message.
std::string formats_with_forms() {
  std::vector<std::string> names;
  for (const std::string& name : trace::exporter_names())
    if (!trace::exporter(name).forms().empty()) names.push_back(name);
  return one_of(names);
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
        std::cout << export_usage();
        return 0;
      }
    const std::vector<std::string> formats = trace::exporter_names();
    if (args.empty()) throw export_usage_error(fmt::format("missing format ({}; see cstsim export --help)", one_of(formats)));
    const std::string format = args[0];
    if (std::find(formats.begin(), formats.end(), format) == formats.end()) {
      if (!format.empty() && format[0] == '-') throw export_usage_error(fmt::format("unknown option '{}' (see cstsim export --help)", format));
      throw export_usage_error(fmt::format("unknown format '{}' (formats: {})", format, fmt::join(formats, ", ")));
    }
    const trace::IExporter& exporter = trace::exporter(format);
    const std::vector<std::string> forms = exporter.forms();
    std::vector<std::string> positional;
    std::string out, form;
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
        if (forms.empty()) throw export_usage_error(fmt::format("{}: --format is for {} only", format, formats_with_forms()));
        if (i + 1 >= args.size() || std::find(forms.begin(), forms.end(), args[i + 1]) == forms.end())
          throw export_usage_error(fmt::format("{}: --format needs {}", format, one_of(forms)));
        form = args[++i];
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
    if (form.empty()) form = exporter.default_form(run_dir);
    const fs::path out_path = have_out ? fs::path(out) : run_dir / "trace" / exporter.default_file(form);
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
      io::check_replaceable(out_path, "--out", force, [&](std::string_view head) { return exporter.recognises(head); },
                            "a cstsim " + format + " export");
    exporter.write(run_dir, out_path, form);
    std::error_code size_error;  // say what was written, and how big it is
    const auto bytes = fs::file_size(out_path, size_error);
    std::cout << fmt::format("wrote {} ({} export, {} bytes)\n", out_path.string(),
                             form.empty() ? format : format + " " + form,
                             size_error ? std::string("?") : std::to_string(bytes));
    return 0;
  } catch (const std::exception& e) {  // usage errors, unreadable traces, outputs that cannot be written
    std::cerr << "error: export: " << one_line(e.what()) << "\n";
    return 2;
  }
}

}  // namespace cstsim
