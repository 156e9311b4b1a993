#include "core/schema.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "core/quantity.h"
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
    case Type::Number:
      if (!k.has_floor) return "number";
      return k.floor == 0 ? (k.floor_inclusive ? "number >= 0" : "number > 0")
                          : fmt::format("number {} {}", k.floor_inclusive ? ">=" : ">", k.floor);
    case Type::Choice: return fmt::format("{}", fmt::join(k.choices, " | "));
    case Type::Integer:
      if (k.power_of_two) return fmt::format("power of two {}..{}", k.min, k.max);
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
    const std::string modes =
        k->applies_with.empty() ? "" : fmt::format(" [memory: {}]", fmt::join(k->applies_with, " | "));
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {}{}\n", prefix + k->name, wk, type, wt, k->fallback, wd, k->doc, modes);
  }
  return out;
}

namespace {

// A value written with a unit (`64KiB`, `1GHz`, `14ns`: core/quantity.h), in the key's unit.
std::optional<double> with_unit(const Key& k, const std::string& text, std::string& problem) {
  const std::string_view t = text::trim(text);
  // Only a number followed by a unit: a plain bad number or a word keeps the key's own message.
  if (t.empty() || !std::isalpha(static_cast<unsigned char>(t.back())) ||
      !(std::isdigit(static_cast<unsigned char>(t.front())) || t.front() == '.'))
    return std::nullopt;
  const QuantityResult q = parse_quantity(t, k.unit);
  if (!q.problem.empty()) {
    problem = q.problem + ", got " + text::quoted(text);
    return std::nullopt;
  }
  return q.value;
}

}  // namespace

IntResult check_integer(const Key& k, const std::string& text) {
  if (k.type != Type::Integer) throw std::logic_error("check_integer: " + k.name + " is not an integer key");
  IntResult r;
  std::optional<int64_t> v = text::parse_int(text);
  if (!v) {
    if (const auto q = with_unit(k, text, r.problem)) {
      if (*q != std::floor(*q) || std::fabs(*q) > 9e18) {
        r.problem = fmt::format("must be a whole number of {}, got {} ({} {})", k.unit, text::quoted(text), *q, k.unit);
        return r;
      }
      v = int64_t(*q);
    } else if (!r.problem.empty()) {
      return r;
    }
  }
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
  if (k.power_of_two && (*v & (*v - 1))) {
    r.problem = fmt::format("must be a power of two, got {}", *v);
    return r;
  }
  r.value = *v;
  return r;
}

NumberResult check_number(const Key& k, const std::string& text) {
  if (k.type != Type::Number) throw std::logic_error("check_number: " + k.name + " is not a number key");
  NumberResult r;
  std::optional<double> v = text::parse_double(text);
  if (!v) {
    v = with_unit(k, text, r.problem);
    if (!r.problem.empty()) return r;
  }
  const std::string of_unit = k.unit.empty() ? "" : " of " + k.unit;
  const bool below = v && k.has_floor && (k.floor_inclusive ? *v < k.floor : *v <= k.floor);
  if (!v || below) {
    if (!k.has_floor)
      r.problem = "must be a number" + of_unit;
    else if (k.floor == 0)
      r.problem = (k.floor_inclusive ? "must be a non-negative number" : "must be a positive number") + of_unit;
    else
      r.problem = fmt::format("must be a number{} {} {}", of_unit, k.floor_inclusive ? "of at least" : "above", k.floor);
    r.problem += ", got " + text::quoted(text);
    return r;
  }
  if (k.rule) r.problem = k.rule(*v);
  r.value = *v;
  return r;
}

std::optional<std::string> default_text(const Key& k) {
  const std::string value = k.fallback.substr(0, k.fallback.find(" ("));
  switch (k.type) {
    case Type::Text:
    case Type::Path: return std::nullopt;
    case Type::Integer:
      if (!check_integer(k, value).problem.empty()) return std::nullopt;
      break;
    case Type::Number:
      if (!check_number(k, value).problem.empty()) return std::nullopt;
      break;
    case Type::Choice:
      if (std::find(k.choices.begin(), k.choices.end(), value) == k.choices.end()) return std::nullopt;
      break;
  }
  return value;
}

namespace {
// The row `name` and its default as a value; a logic_error when either is missing.
std::pair<const Key&, std::string> row_default(const Table& t, const std::string& name) {
  const Key* k = t.find(name);
  if (!k) throw std::logic_error(t.title() + ": no key " + name);
  const std::optional<std::string> text = default_text(*k);
  if (!text) throw std::logic_error(t.title() + ": " + name + "'s default " + text::quoted(k->fallback) + " is not a value");
  return {*k, *text};
}
}  // namespace

int64_t Table::default_integer(const std::string& name) const {
  const auto [k, text] = row_default(*this, name);
  return check_integer(k, text).value;
}

double Table::default_number(const std::string& name) const {
  const auto [k, text] = row_default(*this, name);
  return check_number(k, text).value;
}

std::string Table::default_choice(const std::string& name) const {
  const auto [k, text] = row_default(*this, name);
  if (k.type != Type::Choice) throw std::logic_error(title() + ": " + name + " is not a choice key");
  return text;
}

std::string applicability(const Key& k, const std::string& mode) {
  if (k.applies_with.empty() || std::find(k.applies_with.begin(), k.applies_with.end(), mode) != k.applies_with.end())
    return "";
  std::string modes = k.applies_with.front();
  for (size_t i = 1; i < k.applies_with.size(); ++i)
    modes += (i + 1 == k.applies_with.size() ? " or " : ", ") + k.applies_with[i];
  return "applies only with memory: " + modes;
}

}  // namespace cstsim::schema
