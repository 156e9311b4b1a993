// `cstsim export perfetto`: Chrome trace-event JSON, a counter track per resource.
#include <algorithm>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/out_file.h"
#include "traces/export/export_cli.h"
#include "traces/export/exporter.h"
#include "traces/export/trace_input.h"
#include "version.h"

namespace cstsim::trace {
namespace fs = std::filesystem;
namespace {

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

}  // namespace

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

  io::OutFile out(out_path);
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

  // Slices (slices.csv: folds): a thread per track after the owners' threads.
  std::vector<std::string> slice_tracks;
  for_each_slice(run_dir, [&](const SliceRow& sl) {
    size_t k = size_t(std::find(slice_tracks.begin(), slice_tracks.end(), sl.track) - slice_tracks.begin());
    const int stid = kLayerTid + 1 + int(owners.size() + k);
    if (k == slice_tracks.size()) {
      slice_tracks.push_back(sl.track);
      out.print(",\n{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":{}}}}}", kPid, stid,
                json_string(sl.track));
    }
    out.print(",\n{{\"ph\":\"X\",\"cat\":\"slice\",\"name\":{},\"pid\":{},\"tid\":{},\"ts\":{:.15g},\"dur\":{:.15g},"
              "\"args\":{{\"start_cycle\":{},\"end_cycle\":{}}}}}",
              json_string(sl.name), kPid, stid, ts(uint64_t(sl.start)), double(sl.end + 1 - sl.start) * us_per_cycle,
              sl.start, sl.end);
  });

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

namespace {
// Two forms of one content: Chrome trace-event JSON (this file) and Perfetto's protobuf trace
// (perfetto_proto_export.cpp).
class PerfettoExporter final : public IExporter {
 public:
  std::string help() const override {
    return "for ui.perfetto.dev: a process per owner module with a counter track per\n"
           "resource, one slice per layer. Perfetto's protobuf trace (default\n"
           "<run-dir>/trace/perfetto.pftrace) above 1,000,000 trace records, Chrome\n"
           "trace-event JSON (<run-dir>/trace/perfetto.json) below; --format picks one";
  }
  std::vector<std::string> forms() const override { return {"json", "proto"}; }
  std::string forms_help() const override { return "json or proto (default: by the trace's size, above)"; }
  // By size: the JSON grows ~100 bytes a record. Without trace/ the writer names what is missing.
  std::string default_form(const fs::path& run_dir) const override {
    return fs::is_directory(run_dir / "trace") && open_trace(run_dir)->header().record_count > kPerfettoJsonMaxRecords
               ? "proto"
               : "json";
  }
  std::string default_file(const std::string& form) const override {
    return form == "proto" ? "perfetto.pftrace" : "perfetto.json";
  }
  bool recognises(std::string_view head) const override {
    return (head.rfind("{\"displayTimeUnit\"", 0) == 0 && head.find("\"generator\":\"cstsim ") != head.npos) ||
           (head.rfind("\x0a", 0) == 0 && head.find("cstsim export perfetto: ") != head.npos);
  }
  void write(const fs::path& run_dir, const fs::path& out, const std::string& form) const override {
    if (form == "proto")
      export_perfetto_proto(run_dir, out);
    else
      export_perfetto(run_dir, out);
  }
};
}  // namespace

CSTSIM_REGISTER(IExporter, PerfettoExporter, "perfetto")

}  // namespace cstsim::trace
