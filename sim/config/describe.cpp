#include "sim/config/describe.h"

#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/input_error.h"
#include "sim/config/arch_schema.h"

namespace cstsim {

namespace {

// "hbm.timing.tCL=24ck" lines of a sub-file's canonical text, under its prefix and section.
std::string prefixed_lines(const std::string& prefix, const std::string& text, const std::string& section) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::string key = prefix + line.substr(0, line.find('='));
    if (section.empty() || key == section || key.rfind(section + ".", 0) == 0)
      out += fmt::format("  {:<40} {}\n", key, line.substr(line.find('=') + 1));
  }
  return out;
}

}  // namespace

std::string describe_config(const std::string& section, const std::string& arch_path, const Overrides& overrides) {
  const schema::Table& table = arch_schema();
  std::set<std::string> sections;
  for (const std::string& k : table.names()) sections.insert(k.substr(0, k.find('.')));
  const std::string top = section.substr(0, section.find('.'));
  if (!section.empty() && !sections.count(top))
    throw InputError("--describe", 0, section,
                     fmt::format("no such section (sections: {})", fmt::join(sections, ", ")));
  std::string out;
  if (const std::string rows = table.describe(section); !rows.empty())
    out = fmt::format("Keys of the {} (--set spells them dotted):\n{}", table.title(), rows);
  const bool files = top.empty() || top == "hbm" || top == "noc";
  if (!files) return out;
  // The sub-files' own keys, as --set reaches them (hbm.<key>, noc.<key>).
  auto within = [&](const std::string& prefix) {  // the section inside the sub-file
    return section.size() > prefix.size() ? section.substr(prefix.size()) : std::string();
  };
  for (const auto& [prefix, sub] : {std::pair{std::string("hbm."), &hbm::hbm_schema()},
                                    std::pair{std::string("noc."), &noc::noc_schema()}}) {
    if (!top.empty() && top + "." != prefix) continue;
    if (const std::string rows = sub->describe(within(prefix), prefix); !rows.empty())
      out += fmt::format("\nKeys of the {}, as {}<key>:\n{}", sub->title(), prefix, rows);
  }
  if (arch_path.empty()) {
    out += "\nWith --arch, also the values of the HBM and NoC files the arch names, every timing included.\n";
    return out;
  }
  const ArchSpec a = load_arch(arch_path, overrides);
  if ((top.empty() || top == "hbm") && has_hbm(a.memory))
    out += fmt::format("\nValues of the HBM file {} (--set hbm.<key>=value; times as <n>ck, ns, us or ps):\n{}", a.hbm.spec,
                       prefixed_lines("hbm.", hbm::canonical_text(a.hbm_spec), section));
  if ((top.empty() || top == "noc") && a.memory == MemoryMode::Hierarchy)
    out += fmt::format("\nValues of the NoC file {} (--set noc.<key>=value):\n{}", a.noc.spec,
                       prefixed_lines("noc.", noc::canonical_text(a.noc_config), section));
  return out;
}

}  // namespace cstsim
