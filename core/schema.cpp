#include "core/schema.h"

#include <algorithm>
#include <climits>
#include <stdexcept>

#include <fmt/format.h>

#include "core/text.h"

namespace cstsim::schema {

Table::Table(std::string title, std::vector<Key> keys) : title_(std::move(title)), keys_(std::move(keys)) {}

const Key* Table::find(const std::string& name) const {
  for (const Key& k : keys_)
    if (k.name == name) return &k;
  return nullptr;
}

std::vector<std::string> Table::names() const {
  std::vector<std::string> out;
  for (const Key& k : keys_) out.push_back(k.name);
  return out;
}

bool Table::in_section(const std::string& name, const std::string& section) const {
  return section.empty() || name == section || name.compare(0, section.size() + 1, section + ".") == 0;
}

std::string type_text(const Key& k) {
  switch (k.type) {
    case Type::Text: return "text";
    case Type::Path: return "path";
    case Type::Number: return "number";
    case Type::Choice: return fmt::format("{}", fmt::join(k.choices, " | "));
    case Type::Integer:
      if (k.max == INT_MAX || k.max == 0) return k.min == 1 ? "positive integer" : fmt::format("integer >= {}", k.min);
      return fmt::format("integer {}..{}", k.min, k.max);
  }
  return "?";
}

std::string Table::describe(const std::string& section, const std::string& prefix) const {
  std::vector<const Key*> shown;
  for (const Key& k : keys_)
    if (in_section(k.name, section)) shown.push_back(&k);
  if (shown.empty()) return "";
  size_t wk = 3, wt = 4, wd = 7;
  for (const Key* k : shown) {
    wk = std::max(wk, prefix.size() + k->name.size());
    wt = std::max(wt, type_text(*k).size() + (k->unit.empty() ? 0 : k->unit.size() + 3));
    wd = std::max(wd, k->fallback.size());
  }
  std::string out = fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", "key", wk, "type", wt, "default", wd, "meaning");
  for (const Key* k : shown) {
    const std::string type = type_text(*k) + (k->unit.empty() ? "" : " (" + k->unit + ")");
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", prefix + k->name, wk, type, wt, k->fallback, wd, k->doc);
  }
  return out;
}

IntResult check_integer(const Key& k, const std::string& text) {
  if (k.type != Type::Integer) throw std::logic_error("check_integer: " + k.name + " is not an integer key");
  IntResult r;
  const auto v = text::parse_int(text);
  if (!v || *v < k.min) {
    r.problem = k.min == 1   ? "must be a positive integer, got " + text::quoted(text)
                : k.min == 0 ? "must be a non-negative integer, got " + text::quoted(text)
                             : fmt::format("must be an integer of at least {}, got {}", k.min, text::quoted(text));
    return r;
  }
  if (k.max > 0 && *v > k.max) {
    r.problem = fmt::format("must be at most {}, got {}", k.max, text::quoted(text));
    return r;
  }
  r.value = *v;
  return r;
}

}  // namespace cstsim::schema
