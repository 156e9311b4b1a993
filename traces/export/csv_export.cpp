// `cstsim export csv`: one row per change record.
#include <fmt/format.h>

#include "core/out_file.h"
#include "traces/export/export_cli.h"
#include "traces/export/exporter.h"
#include "traces/export/trace_input.h"

namespace cstsim::trace {
namespace fs = std::filesystem;

void export_csv(const fs::path& run_dir, const fs::path& out_path) {
  auto reader = open_trace(run_dir);
  const double period = reader->header().period_s;
  const auto& res = reader->resources();
  io::OutFile out(out_path);
  out.put("cycle,time_s,resource,name,value\n");
  stream_records(*reader, run_dir, [&](const Record& r) {
    out.print("{},{:.15g},{},{},{}\n", r.cycle, double(r.cycle) * period, r.resource, res[r.resource].name, r.value);
  });
  out.commit();
}

namespace {
class CsvExporter final : public IExporter {
 public:
  std::string help() const override {
    return "one row per change record: cycle,time_s,resource,name,value\n"
           "(default output <run-dir>/trace/rt.csv)";
  }
  std::string default_file(const std::string&) const override { return "rt.csv"; }
  bool recognises(std::string_view head) const override {
    return head.rfind("cycle,time_s,resource,name,value\n", 0) == 0;
  }
  void write(const fs::path& run_dir, const fs::path& out, const std::string&) const override {
    export_csv(run_dir, out);
  }
};
}  // namespace

CSTSIM_REGISTER(IExporter, CsvExporter, "csv")

}  // namespace cstsim::trace
