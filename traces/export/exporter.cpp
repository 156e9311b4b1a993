// The exporter registry's lookup. Formats register themselves (CSTSIM_REGISTER in their
// *_export.cpp); the anchors below only keep them linked in.
#include "traces/export/exporter.h"

namespace cstsim::trace {

int cstsim_anchor_CsvExporter();       // csv_export.cpp
int cstsim_anchor_PerfettoExporter();  // perfetto_export.cpp
int cstsim_anchor_VcdExporter();       // vcd_export.cpp

namespace {
Registry<IExporter>& exporters() {
  static const int linked = cstsim_anchor_CsvExporter() + cstsim_anchor_PerfettoExporter() + cstsim_anchor_VcdExporter();
  (void)linked;
  return Registry<IExporter>::instance();
}
}  // namespace

std::vector<std::string> exporter_names() { return exporters().names(); }

const IExporter& exporter(const std::string& name) { return exporters().shared(name, "format"); }

}  // namespace cstsim::trace
