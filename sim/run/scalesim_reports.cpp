#include "sim/run/scalesim_reports.h"

#include <fmt/format.h>

#include <stdexcept>

namespace cstsim {
namespace {

// Python's repr of a float (shortest round-trip, always with a '.'), as SCALE-Sim prints.
std::string py_float(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

const ScaleSimMemory& memory_of(const RunReport& r, size_t layer) {
  const auto& m = r.plan->layers.at(layer).scalesim;
  if (!m || !m->accesses) throw std::logic_error("a SCALE-Sim report without the layer's memory replay");
  return *m;
}

// SCALE-Sim's SRAM counts: its OS ofmap writes carry its F*(R+C) accounting (ArrayLayerStats).
std::array<int64_t, 3> sram_words(const ArrayLayerResult& L) {
  return {L.stats.sram.ifmap_reads, L.stats.sram.filter_reads, L.stats.scalesim_ofmap_writes};
}

}  // namespace

std::string scalesim_compute_report(const RunReport& r) {
  const ArchSpec& a = *r.arch;
  std::string out = "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,\n";
  for (size_t i = 0; i < r.layers->size(); ++i) {
    const ArrayLayerResult& L = (*r.layers)[i];
    const auto& m = r.plan ? r.plan->layers.at(i).scalesim : std::nullopt;
    out += fmt::format("{}, {}, {}, {}, {}, {},\n", i, L.cycles, m ? m->stall_cycles : L.stall_cycles,
                       py_float(double(L.stats.macs * 100) / double(L.cycles * a.rows * a.cols)),  // as it divides
                       py_float(100.0 * L.stats.mapping_efficiency), py_float(100.0 * L.stats.compute_utilization));
  }
  return out;
}

bool has_scalesim_memory(const RunReport& r) {
  if (!r.plan || r.plan->layers.size() != r.layers->size()) return false;
  for (const LayerPlan& l : r.plan->layers)
    if (!l.scalesim || !l.scalesim->accesses) return false;
  return true;
}

std::string scalesim_bandwidth_report(const RunReport& r) {
  std::string out =
      "LayerID, Avg IFMAP SRAM BW, Avg FILTER SRAM BW, Avg OFMAP SRAM BW, Avg IFMAP DRAM BW, Avg FILTER DRAM BW, "
      "Avg OFMAP DRAM BW,\n";
  for (size_t i = 0; i < r.layers->size(); ++i) {
    const ScaleSimMemory& m = memory_of(r, i);
    const auto sram = sram_words((*r.layers)[i]);
    out += fmt::format("{}", i);
    for (int o = 0; o < 3; ++o) out += ", " + py_float(double(sram[size_t(o)]) / double(m.total_cycles));
    for (int o = 0; o < 3; ++o) {  // over the interface's own busy span
      const auto& d = m.dram[size_t(o)];
      out += ", " + py_float(double(d.words) / double(d.stop - d.start + 1));
    }
    out += ",\n";
  }
  return out;
}

std::string scalesim_access_report(const RunReport& r) {
  std::string out =
      "LayerID, SRAM IFMAP Start Cycle, SRAM IFMAP Stop Cycle, SRAM IFMAP Reads, SRAM Filter Start Cycle, "
      "SRAM Filter Stop Cycle, SRAM Filter Reads, SRAM OFMAP Start Cycle, SRAM OFMAP Stop Cycle, SRAM OFMAP Writes, "
      "DRAM IFMAP Start Cycle, DRAM IFMAP Stop Cycle, DRAM IFMAP Reads, DRAM Filter Start Cycle, DRAM Filter Stop "
      "Cycle, DRAM Filter Reads, DRAM OFMAP Start Cycle, DRAM OFMAP Stop Cycle, DRAM OFMAP Writes,\n";
  for (size_t i = 0; i < r.layers->size(); ++i) {
    const ScaleSimMemory& m = memory_of(r, i);
    const auto sram = sram_words((*r.layers)[i]);
    out += fmt::format("{}", i);
    for (int o = 0; o < 3; ++o)  // cycles print as floats: SCALE-Sim keeps them in float arrays
      out += fmt::format(", {}, {}, {}", py_float(double(m.sram[size_t(o)].start)), py_float(double(m.sram[size_t(o)].stop)),
                         sram[size_t(o)]);
    for (int o = 0; o < 3; ++o)
      out += fmt::format(", {}, {}, {}", py_float(double(m.dram[size_t(o)].start)), py_float(double(m.dram[size_t(o)].stop)),
                         m.dram[size_t(o)].words);
    out += ",\n";
  }
  return out;
}

}  // namespace cstsim
