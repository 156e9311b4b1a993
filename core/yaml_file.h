#pragma once
// Loading a YAML input file with errors in InputError form (1-based lines).
#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/input_error.h"
#include "core/input_file.h"
#include "core/text.h"

namespace cstsim {

// yaml-cpp marks are 0-based and -1 when unknown; InputError wants 1-based or 0.
inline int line_of(const YAML::Mark& mark) { return mark.line >= 0 ? mark.line + 1 : 0; }
inline int line_of(const YAML::Node& node) { return line_of(node.Mark()); }

inline const char* yaml_kind(const YAML::Node& node) {
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  if (node.IsNull()) return "nothing";
  return "a single value";
}

// Every file read through load_yaml_file: a key given twice in one map (yaml-cpp keeps both and
// answers the first) is an error naming the dotted path and both lines; so is a key or value that
// is not UTF-8 (it would fail only when the run's JSON is written, after the simulation).
inline void check_yaml_tree(const std::string& path, const YAML::Node& node, const std::string& prefix) {
  if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i)
      check_yaml_tree(path, node[i], prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1) + "[" + std::to_string(i) + "].");
    return;
  }
  if (node.IsScalar()) {  // names and values end up in JSON and CSV: UTF-8 only
    if (const auto at = text::invalid_utf8(node.Scalar()))
      throw InputError(path, line_of(node), prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1),
                       fmt::format("not UTF-8 (byte 0x{:02x} at offset {} of the value)",
                                   static_cast<unsigned char>(node.Scalar()[*at]), *at));
    return;
  }
  if (!node.IsMap()) return;
  std::map<std::string, int> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (!it->first.IsScalar()) throw InputError(path, line_of(it->first), prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1), "a key must be a plain word, not " + std::string(it->first.IsMap() ? "a map" : "a list"));
    const std::string key = it->first.Scalar();
    if (const auto at = text::invalid_utf8(key))
      throw InputError(path, line_of(it->first), prefix.empty() ? "" : prefix.substr(0, prefix.size() - 1), fmt::format("a key that is not UTF-8 (byte 0x{:02x})", static_cast<unsigned char>(key[*at])));
    if (auto [at, fresh] = seen.emplace(key, line_of(it->first)); !fresh)
      throw InputError(path, line_of(it->first), prefix + key, "duplicate key (first at line " + std::to_string(at->second) + ")");
    check_yaml_tree(path, it->second, prefix + key + ".");
  }
}

// Where the parser's documents start: enough to count them and to see the parser move on.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// `text`, a YAML file's contents, read as load_yaml_file reads a file (`path` names it in errors).
inline YAML::Node load_yaml_text(const std::string& path, const std::string& text) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
    // One document per file. Counted with the parser itself, two documents at most: yaml-cpp
    // 0.7's LoadAll never returns on a stream its parser cannot move through (a lone ',':
    // yaml-cpp #1040, found by tests/fuzz), and neither would a loop over HandleNextDocument.
    std::istringstream again(text);
    YAML::Parser parser(again);
    DocumentStarts docs;
    if (parser.HandleNextDocument(docs) && parser.HandleNextDocument(docs)) {
      if (docs.starts.size() == 2 && docs.starts[1].pos <= docs.starts[0].pos)
        throw InputError(path, line_of(docs.starts[0]), "", "malformed YAML: the parser cannot go past this line (a stray ','?)");
      throw InputError(path, line_of(docs.starts.back()), "", "a second YAML document (---): one document per file");
    }
  } catch (const YAML::ParserException& e) {
    throw InputError(path, line_of(e.mark), "", "malformed YAML: " + e.msg);
  }
  check_yaml_tree(path, root, "");
  return root;
}

inline YAML::Node load_yaml_file(const std::string& path) {
  check_input_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file");
  std::stringstream text;
  text << in.rdbuf();
  return load_yaml_text(path, text.str());
}

// A number: finite, from a scalar ("expected a number" otherwise; .nan and .inf refused).
inline double yaml_number(const std::string& file, const YAML::Node& node, const std::string& key) {
  double v = 0;
  if (!node.IsScalar() || !YAML::convert<double>::decode(node, v))
    throw InputError(file, line_of(node), key, std::string("expected a number, got ") + (node.IsScalar() ? "'" + node.Scalar() + "'" : yaml_kind(node)));
  if (!std::isfinite(v)) throw InputError(file, line_of(node), key, "must be a finite number, got '" + node.Scalar() + "'");
  return v;
}

// A single value as text ("expected a single value" for a list or a map).
inline std::string yaml_text(const std::string& file, const YAML::Node& node, const std::string& key) {
  if (!node.IsScalar()) throw InputError(file, line_of(node), key, std::string("expected a single value, got ") + yaml_kind(node));
  return node.Scalar();
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


}  // namespace cstsim
