#include "core/quantity.h"

#include <cctype>
#include <cmath>
#include <vector>

#include "core/text.h"

namespace cstsim {
namespace {

enum class Dimension { Time, Frequency, Bytes, Rate, Cycles };

struct UnitRow {
  const char* symbol;
  Dimension dimension;
  int ten, two;  // the unit is 10^ten * 2^two of its dimension's base (s, Hz, B, B/s, cycle)
};

// Every unit a quantity may be written in (matched exactly, case included: ms is not Ms).
const std::vector<UnitRow>& units() {
  static const std::vector<UnitRow> rows = {
      {"s", Dimension::Time, 0, 0},          {"ms", Dimension::Time, -3, 0},       {"us", Dimension::Time, -6, 0},
      {"\u00b5s", Dimension::Time, -6, 0},   {"ns", Dimension::Time, -9, 0},       {"ps", Dimension::Time, -12, 0},
      {"Hz", Dimension::Frequency, 0, 0},    {"kHz", Dimension::Frequency, 3, 0},  {"MHz", Dimension::Frequency, 6, 0},
      {"GHz", Dimension::Frequency, 9, 0},   {"B", Dimension::Bytes, 0, 0},        {"byte", Dimension::Bytes, 0, 0},
      {"bytes", Dimension::Bytes, 0, 0},     {"KiB", Dimension::Bytes, 0, 10},     {"MiB", Dimension::Bytes, 0, 20},
      {"GiB", Dimension::Bytes, 0, 30},      {"TiB", Dimension::Bytes, 0, 40},     {"B/s", Dimension::Rate, 0, 0},
      {"kB/s", Dimension::Rate, 3, 0},       {"MB/s", Dimension::Rate, 6, 0},      {"GB/s", Dimension::Rate, 9, 0},
      {"TB/s", Dimension::Rate, 12, 0},      {"GiB/s", Dimension::Rate, 0, 30},    {"ck", Dimension::Cycles, 0, 0},
      {"cycle", Dimension::Cycles, 0, 0},    {"cycles", Dimension::Cycles, 0, 0},
  };
  return rows;
}

// x * 10^ten * 2^two, with whole powers applied as exact multiplications or divisions (5 ps is
// 0.005 ns, not 0.004999...).
double scaled(double x, int ten, int two) {
  const double p10 = std::pow(10.0, std::abs(ten));
  x = ten >= 0 ? x * p10 : x / p10;
  return std::ldexp(x, two);
}

const UnitRow* row_of(std::string_view symbol) {
  for (const UnitRow& r : units())
    if (symbol == r.symbol) return &r;
  return nullptr;
}

}  // namespace

std::string accepted_units(std::string_view unit) {
  const UnitRow* key = row_of(unit);
  if (!key) return "";
  std::string out;
  for (const UnitRow& r : units())
    if (r.dimension == key->dimension && std::string_view(r.symbol) != "byte" && std::string_view(r.symbol) != "bytes" &&
        std::string_view(r.symbol) != "cycle")
      out += (out.empty() ? "" : ", ") + std::string(r.symbol);
  return out;
}

QuantityResult parse_quantity(std::string_view text, std::string_view unit) {
  QuantityResult r;
  const std::string_view t = text::trim(text);
  if (auto plain = text::parse_double(t)) {
    r.value = *plain;
    return r;
  }
  // The number, then the unit (spaces between allowed).
  size_t end = 0;
  while (end < t.size() && (std::isdigit(static_cast<unsigned char>(t[end])) || t[end] == '.' || t[end] == '-' ||
                            t[end] == '+' || ((t[end] == 'e' || t[end] == 'E') && end > 0 &&
                                              end + 1 < t.size() && (std::isdigit(static_cast<unsigned char>(t[end + 1])) ||
                                                                     t[end + 1] == '-' || t[end + 1] == '+'))))
    ++end;
  const auto number = text::parse_double(t.substr(0, end));
  const std::string_view symbol = text::trim(t.substr(end));
  const UnitRow* key = row_of(unit);
  const std::string accepted = accepted_units(unit);
  if (!number || symbol.empty() || !std::isfinite(*number)) {
    r.problem = "expected a number" + (accepted.empty() ? std::string() : " (" + std::string(unit) + ", or with a unit: " + accepted + ")");
    return r;
  }
  if (symbol == "kB" || symbol == "KB" || symbol == "MB" || symbol == "GB" || symbol == "TB") {
    r.problem = "'" + std::string(symbol) + "' is ambiguous: write KiB/MiB/GiB (powers of 1024) or bytes";
    return r;
  }
  const UnitRow* given = row_of(symbol);
  if (!key) {
    r.problem = "takes a plain number" + (unit.empty() ? std::string() : " of " + std::string(unit)) + ", not one with a unit";
    return r;
  }
  if (!given || given->dimension != key->dimension) {
    r.problem = "unit '" + std::string(symbol) + "' is not one of " + accepted;
    return r;
  }
  r.value = scaled(*number, given->ten - key->ten, given->two - key->two);
  return r;
}

}  // namespace cstsim
