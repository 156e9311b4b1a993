#include "sim/config/scalesim_cfg.h"

#include <fmt/format.h>

#include <fstream>
#include <set>
#include <vector>

#include "core/input_error.h"
#include "core/input_file.h"
#include "core/text.h"

namespace cstsim {
namespace {

struct CfgKey {
  const char* section;
  const char* name;  // as SCALE-Sim documents it; matched case-insensitively
  const char* arch;  // arch key it sets, or nullptr when ignored
};

// Every key SCALE-Sim v2 reads (scalesim/scale_config.py and the sample cfgs).
const CfgKey kKeys[] = {
    {"general", "run_name", "name"},
    {"architecture_presets", "ArrayHeight", "array.rows"},
    {"architecture_presets", "ArrayWidth", "array.cols"},
    {"architecture_presets", "Dataflow", "dataflow"},
    {"architecture_presets", "IfmapSramSzkB", "sram.ifmap_kib"},
    {"architecture_presets", "FilterSramSzkB", "sram.filter_kib"},
    {"architecture_presets", "OfmapSramSzkB", "sram.ofmap_kib"},
    // Offsets only place the operands apart in SCALE-Sim's trace files; banking and request
    // buffers only matter to its Ramulator path (UseRamulatorTrace, refused below).
    {"architecture_presets", "IfmapOffset", nullptr},
    {"architecture_presets", "FilterOffset", nullptr},
    {"architecture_presets", "OfmapOffset", nullptr},
    {"architecture_presets", "Bandwidth", "scalesim.bandwidth_words"},
    {"architecture_presets", "MemoryBanks", nullptr},
    {"architecture_presets", "ReadRequestBuffer", nullptr},
    {"architecture_presets", "WriteRequestBuffer", nullptr},
    {"layout", "IfmapCustomLayout", nullptr},
    {"layout", "IfmapSRAMBankBandwidth", nullptr},
    {"layout", "IfmapSRAMBankNum", nullptr},
    {"layout", "IfmapSRAMBankPort", nullptr},
    {"layout", "FilterCustomLayout", nullptr},
    {"layout", "FilterSRAMBankBandwidth", nullptr},
    {"layout", "FilterSRAMBankNum", nullptr},
    {"layout", "FilterSRAMBankPort", nullptr},
    {"sparsity", "SparsitySupport", nullptr},  // checked below: must be false
    {"sparsity", "SparseRep", nullptr},
    {"sparsity", "OptimizedMapping", nullptr},
    {"sparsity", "BlockSize", nullptr},
    {"sparsity", "RandomNumberGeneratorSeed", nullptr},
    {"run_presets", "InterfaceBandwidth", "scalesim.interface_bandwidth"},
    {"run_presets", "UseRamulatorTrace", nullptr},
    {"network_presets", "TopologyCsvLoc", nullptr},
    {"memory_map_files", "MemoryMapIfmap", nullptr},
    {"memory_map_files", "MemoryMapFilter", nullptr},
    {"memory_map_files", "MemoryMapOfmap", nullptr},
};

const CfgKey* find_key(const std::string& section, const std::string& name) {
  for (const CfgKey& k : kKeys)
    if (section == k.section && text::lower(name) == text::lower(k.name)) return &k;
  return nullptr;
}

bool known_section(const std::string& section) {
  for (const CfgKey& k : kKeys)
    if (section == k.section) return true;
  return false;
}

std::string known_sections() {
  std::string out;
  std::set<std::string> seen;
  for (const CfgKey& k : kKeys)
    if (seen.insert(k.section).second) out += (out.empty() ? "" : ", ") + std::string(k.section);
  return out;
}

// configparser's boolean spellings.
bool cfg_true(const std::string& file, int line, const std::string& key, std::string_view v) {
  std::string s = text::lower(v);
  if (s == "1" || s == "yes" || s == "true" || s == "on") return true;
  if (s == "0" || s == "no" || s == "false" || s == "off") return false;
  throw InputError(file, line, key, "expected true or false, got " + text::quoted(v));
}

// SCALE-Sim v2 reads Bandwidth as a list and gives its first value to all three DRAM
// interfaces; a list that says otherwise would be read differently from what it says.
std::string one_bandwidth(const std::string& file, int line, const std::string& key, std::string_view v) {
  std::vector<std::string> values;
  size_t start = 0;
  while (true) {
    const size_t comma = v.find(',', start);
    values.emplace_back(text::trim(v.substr(start, comma == std::string_view::npos ? comma : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  for (const std::string& x : values)
    if (x != values[0])
      throw InputError(file, line, key, "SCALE-Sim v2 uses the first bandwidth for every DRAM interface; give one value, got " +
                                            text::quoted(v));
  return values[0];
}

}  // namespace

ArchFields read_scalesim_cfg(const std::string& path) {
  InputStream in(path);

  ArchFields out;
  out.file = path;
  out.labels = {{"array.rows", "ArrayHeight"}, {"array.cols", "ArrayWidth"},
                {"dataflow", "Dataflow"}};
  // What a .cfg implies: SCALE-Sim's own fold timing over ideal memory.
  out.values["fold_pipeline"] = {"scalesim", path, 0, "fold_pipeline"};
  out.values["memory"] = {"ideal", path, 0, "memory"};

  std::string section;
  std::set<std::string> sections_seen;
  std::map<const CfgKey*, int> keys_seen;  // -> line, to report duplicates
  std::string raw;
  for (int line = 1; std::getline(in, raw); ++line) {
    if (const auto at = text::invalid_utf8(raw))
      throw InputError(path, line, "", fmt::format("not UTF-8 (byte 0x{:02x} in column {})", static_cast<unsigned char>(raw[*at]), *at + 1));
    std::string_view s = text::trim(raw);
    if (s.empty() || s[0] == '#' || s[0] == ';') continue;
    if (s[0] == '[') {
      if (s.back() != ']') throw InputError(path, line, "", "malformed section header " + text::quoted(s));
      section = std::string(text::trim(s.substr(1, s.size() - 2)));
      if (!known_section(section))
        throw InputError(path, line, "[" + section + "]",
                         "unknown section (known: " + known_sections() + ")");
      if (!sections_seen.insert(section).second)
        throw InputError(path, line, "[" + section + "]", "duplicate section");
      continue;
    }
    // configparser splits at the first ':' or '=', whichever comes first.
    size_t sep = s.find_first_of(":=");
    if (sep == std::string_view::npos)
      throw InputError(path, line, "", "expected 'key: value' or 'key = value', got " + text::quoted(s));
    std::string name(text::trim(s.substr(0, sep)));
    std::string_view value = text::trim(s.substr(sep + 1));
    if (section.empty()) throw InputError(path, line, name, "key before any [section]");
    const CfgKey* key = find_key(section, name);
    if (!key) throw InputError(path, line, name, "unknown key in [" + section + "]");
    if (auto [it, fresh] = keys_seen.emplace(key, line); !fresh)
      throw InputError(path, line, name,
                       "duplicate key (first at line " + std::to_string(it->second) + ")");
    if (std::string(key->name) == "Dataflow" && text::trim(value) == "rs")
      throw InputError(path, line, name, "SCALE-Sim's dataflows are os, ws and is; row stationary runs from a cstsim arch "
                                         "YAML (dataflow: rs)");
    std::string arch_value(value);
    if (std::string(key->name) == "InterfaceBandwidth") {  // scale_config.py takes these two exactly
      if (value != "USER" && value != "CALC")
        throw InputError(path, line, name, "expected USER or CALC, got " + text::quoted(value));
      arch_value = text::lower(value);
    }
    if (std::string(key->name) == "Bandwidth") arch_value = one_bandwidth(path, line, name, value);
    if (std::string(key->name) == "UseRamulatorTrace" && cfg_true(path, line, name, value))
      throw InputError(path, line, name, "SCALE-Sim's Ramulator path is not reproduced; run with False");
    if (key->arch) out.values[key->arch] = {arch_value, path, line, name};
    if (std::string(key->name) == "SparsitySupport" && cfg_true(path, line, name, value))
      throw InputError(path, line, name, "sparse arrays are not supported");
  }
  // CALC is what cstsim does anyway (and what an overridden fold_pipeline may drop); USER is a
  // memory the run must model, and needs its bandwidth.
  const auto mode = out.values.find("scalesim.interface_bandwidth");
  if (mode == out.values.end() || mode->second.text == "calc") {
    out.values.erase("scalesim.interface_bandwidth");
    out.values.erase("scalesim.bandwidth_words");
  } else if (!out.values.count("scalesim.bandwidth_words")) {
    throw InputError(path, mode->second.line, "InterfaceBandwidth", "USER needs Bandwidth in [architecture_presets]");
  }
  return out;
}

}  // namespace cstsim
