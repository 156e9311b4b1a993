#pragma once
// A schema table: every key of one kind of input file, with its type, unit, default
// (or "required"), range and a one-line doc. A default written as a value the key accepts
// ("64", "0 (unbounded)", "ideal") is the value the code uses: the structs initialise
// from it (Table::default_integer and kin), so each default is written once, in its row. The reader takes its key list, the
// integer ranges (and powers of two), number floors and rules, choice lists, the
// memory modes a key applies to and their error messages from it, and `cstsim run
// --describe` prints it, so what is accepted and what is documented are one table.
// Left in code: the HBM file's times with units (ck | ns | ps) and its cross-key
// timing rules (tREFI against tRFC, in the refresh policy).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cstsim::schema {

enum class Type { Text, Integer, Number, Choice, Path };

struct Key {
  std::string name;  // dotted, as --set spells it
  Type type = Type::Text;
  std::string unit;      // "PE", "KiB", "Hz", "GB/s", "ns", "cycles", "bytes", or ""
  std::string fallback;  // the default as written, or "required" (default_text reads the value in it)
  std::string doc;       // one line
  int64_t min = 0, max = 0;          // Integer: the accepted range
  bool power_of_two = false;         // Integer: and a power of two
  std::vector<std::string> choices;  // Choice: the accepted values
  // Number: a lower bound (above it, or at least it) and a rule of its own on the value ("" when
  // fine, else the message), e.g. the clock bounds of core/clock.h.
  bool has_floor = false, floor_inclusive = true;
  double floor = 0;
  std::function<std::string(double)> rule;
  // The memory modes the key applies to (empty: all); set under another mode it is an input
  // error "applies only with memory: a or b" (applicability()).
  std::vector<std::string> applies_with;
};

// Rows, one per type.
inline Key text_key(std::string name, std::string fallback, std::string doc) {
  Key k;
  k.name = std::move(name), k.type = Type::Text, k.fallback = std::move(fallback), k.doc = std::move(doc);
  return k;
}
inline Key path_key(std::string name, std::string fallback, std::string doc) {
  Key k = text_key(std::move(name), std::move(fallback), std::move(doc));
  k.type = Type::Path;
  return k;
}
inline Key number_key(std::string name, std::string unit, std::string fallback, std::string doc) {
  Key k = text_key(std::move(name), std::move(fallback), std::move(doc));
  k.type = Type::Number, k.unit = std::move(unit);
  return k;
}
inline Key integer_key(std::string name, std::string unit, std::string fallback, int64_t min, int64_t max,
                       std::string doc) {
  Key k = number_key(std::move(name), std::move(unit), std::move(fallback), std::move(doc));
  k.type = Type::Integer, k.min = min, k.max = max;
  return k;
}
// Integer keys whose value must be a power of two.
inline Key pow2(Key k) {
  k.power_of_two = true;
  return k;
}
// Number keys with a floor: at_least(number_key(...), 0) for >= 0, above(..., 0) for > 0.
inline Key at_least(Key k, double floor) {
  k.has_floor = true, k.floor_inclusive = true, k.floor = floor;
  return k;
}
inline Key above(Key k, double floor) {
  k.has_floor = true, k.floor_inclusive = false, k.floor = floor;
  return k;
}
inline Key with_rule(Key k, std::function<std::string(double)> rule) {
  k.rule = std::move(rule);
  return k;
}
// The key applies only under these memory modes.
inline Key only_with(Key k, std::vector<std::string> modes) {
  k.applies_with = std::move(modes);
  return k;
}
inline Key choice_key(std::string name, std::string unit, std::string fallback, std::vector<std::string> choices,
                      std::string doc) {
  Key k = number_key(std::move(name), std::move(unit), std::move(fallback), std::move(doc));
  k.type = Type::Choice, k.choices = std::move(choices);
  return k;
}

class Table {
 public:
  Table(std::string title, std::vector<Key> keys);
  const std::string& title() const { return title_; }
  const std::vector<Key>& keys() const { return keys_; }
  const Key* find(const std::string& name) const;
  std::vector<std::string> names() const;
  // Whether `name` is a group ("array" for array.rows) or a key in it.
  bool in_section(const std::string& name, const std::string& section) const;
  // The keys under `section` ("" for all, "scratchpad" for scratchpad.*) as an
  // aligned table, each name after `prefix` ("hbm."); empty when the section has no key.
  std::string describe(const std::string& section = "", const std::string& prefix = "") const;
  // The row's default, parsed by the row's own rules; a std::logic_error when `name` has no row or
  // its default is not a value (a law of the code: the struct asking names a row with one).
  int64_t default_integer(const std::string& name) const;
  double default_number(const std::string& name) const;
  std::string default_choice(const std::string& name) const;

 private:
  std::string title_;
  std::vector<Key> keys_;
};

// Integer keys: the value, or the message ("must be a positive integer, got ...")
// naming the range the table gives.
struct IntResult {
  int64_t value = 0;
  std::string problem;  // empty when the text is an integer in range
};
IntResult check_integer(const Key& key, const std::string& text);

// Number keys: the value, or the message ("must be a positive number of GB/s, got ...", or the
// key's rule's) from its row.
struct NumberResult {
  double value = 0;
  std::string problem;
};
NumberResult check_number(const Key& key, const std::string& text);

// The key's default as a value it accepts: the fallback up to an optional " (note)", when it
// passes the row's checks (range, floor, rule, choices); nullopt for "required", text and path
// keys, and defaults the reader works out ("mesh centre", "chips", "file stem").
std::optional<std::string> default_text(const Key& key);

// "" when `key` applies under memory mode `mode`, else "applies only with memory: a or b".
std::string applicability(const Key& key, const std::string& mode);

// "positive integer", "integer 1..256", "ws | os | is", ... for docs and errors.
std::string type_text(const Key& key);

}  // namespace cstsim::schema
