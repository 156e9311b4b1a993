#pragma once
// IExporter: one output format of `cstsim export`, registered by name (core/registry.h).
// A format is one file in traces/export/ that writes it and registers its row,
//
//   CSTSIM_REGISTER(IExporter, CsvExporter, "csv")
//
// plus one anchor line in exporter.cpp (the static library drops an object file nothing
// refers to). export_cli.cpp names no format: its help, its errors and its dispatch come
// from these rows.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/registry.h"

namespace cstsim::trace {

class IExporter {
 public:
  virtual ~IExporter() = default;
  // The format's paragraph in `cstsim export --help`, lines separated by '\n', without the
  // name column.
  virtual std::string help() const = 0;
  // The forms --format chooses between; none for a format with one form (it refuses --format).
  virtual std::vector<std::string> forms() const { return {}; }
  // The --format line of the help, after "<name> only: ", for a format with forms.
  virtual std::string forms_help() const { return {}; }
  // The form written without --format. It may read the trace (perfetto picks by size), so it
  // throws as the writer does on a missing or bad trace.
  virtual std::string default_form(const std::filesystem::path& /*run_dir*/) const { return {}; }
  // The output's name in <run-dir>/trace/ when --out is not given.
  virtual std::string default_file(const std::string& form) const = 0;
  // Whether a file beginning with `head` (its first bytes) is an earlier export of this
  // format: only such a file is replaced without --force.
  virtual bool recognises(std::string_view head) const = 0;
  // Writes the export of <run_dir>/trace/ to `out`, all or nothing (io::OutFile). Throws
  // std::runtime_error on a bad trace or a failed write.
  virtual void write(const std::filesystem::path& run_dir, const std::filesystem::path& out,
                     const std::string& form) const = 0;
};

// The registered formats, sorted by name.
std::vector<std::string> exporter_names();
// Throws std::invalid_argument "unknown format 'x' (known: ...)"; check exporter_names() first
// for the command's own wording.
const IExporter& exporter(const std::string& name);

}  // namespace cstsim::trace
