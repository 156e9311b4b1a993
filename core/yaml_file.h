#pragma once
// Loading a YAML input file with errors in InputError form (1-based lines).
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <initializer_list>
#include <string>

#include "core/input_error.h"

namespace cstsim {

// yaml-cpp marks are 0-based and -1 when unknown; InputError wants 1-based or 0.
inline int line_of(const YAML::Mark& mark) { return mark.line >= 0 ? mark.line + 1 : 0; }
inline int line_of(const YAML::Node& node) { return line_of(node.Mark()); }

inline YAML::Node load_yaml_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file");
  try {
    return YAML::Load(in);
  } catch (const YAML::ParserException& e) {
    throw InputError(path, line_of(e.mark), "", "malformed YAML: " + e.msg);
  }
}

// Rejects any key of `map` not in `allowed`, naming it as prefix + key.
inline void reject_unknown_keys(const std::string& file, const YAML::Node& map, const std::string& prefix,
                                std::initializer_list<const char*> allowed) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = it->first.as<std::string>();
    bool known = false;
    for (const char* a : allowed) known = known || key == a;
    if (!known) throw InputError(file, line_of(it->first), prefix + key, "unknown key");
  }
}

inline const char* yaml_kind(const YAML::Node& node) {
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  if (node.IsNull()) return "nothing";
  return "a single value";
}

}  // namespace cstsim
