#pragma once
// The untyped middle step of load_arch: every source (arch YAML, SCALE-Sim .cfg,
// --set) is read into dotted-key -> text entries that remember where each value
// was written. One validator then turns them into an ArchSpec, so a bad value is
// reported the same way, with its own file/line/key, whichever source it came from.
#include <map>
#include <string>

namespace cstsim {

struct ArchField {
  std::string text;  // the value as written (trimmed)
  std::string file;  // where it was written ("--set" for overrides)
  int line = 0;      // 1-based; 0 when implied or from the command line
  std::string key;   // the key as the user spelled it ("array.rows", "ArrayHeight")
  bool quoted = false;  // a quoted YAML string ("8"): never read as a number
};

struct ArchFields {
  std::string file;                           // the arch file being loaded
  std::map<std::string, ArchField> values;    // by canonical dotted key
  std::map<std::string, std::string> labels;  // canonical key -> spelling to name when missing
};

}  // namespace cstsim
