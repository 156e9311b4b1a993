#pragma once
// Small text helpers shared by the config and workload readers: every number in
// every input format goes through the same strict parse, so "3.5", "1e2" or
// "12abc" are rejected the same way wherever they appear.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cstsim::text {

inline std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n\f\v";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

inline std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Whole-string decimal integer; nullopt on anything else (including overflow).
inline std::optional<int64_t> parse_int(std::string_view s) {
  s = trim(s);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Whole-string finite real number ("7e8", "1.0e9", "700000000").
inline std::optional<double> parse_double(std::string_view s) {
  s = trim(s);
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

// A value as shown inside an error message: quoted and cut short.
inline std::string quoted(std::string_view s) {
  constexpr size_t kMax = 60;
  if (s.size() > kMax) return "'" + std::string(s.substr(0, kMax)) + "...'";
  return "'" + std::string(s) + "'";
}

// File name without directories and the last extension ("configs/arch/tpu-v1.yaml" -> "tpu-v1").
inline std::string stem(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

// The first control character (bytes 0x00-0x1f and 0x7f: newline, tab, escape...), if any.
inline std::optional<size_t> control_char(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i)
    if (static_cast<unsigned char>(s[i]) < 0x20 || s[i] == 0x7f) return i;
  return std::nullopt;
}

// The offset of the first byte that does not begin or continue a well-formed UTF-8 sequence
// (overlong forms, surrogates and code points past U+10FFFF included), if any. Names go into JSON,
// which must be UTF-8: a bad byte is an input error, not a failure after the simulation.
inline std::optional<size_t> invalid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    unsigned min = 0;
    if (c < 0x80) { ++i; continue; }
    if (c >= 0xc2 && c <= 0xdf) n = 1, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef) n = 2, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4) n = 3, min = 0x10000;
    else return i;
    unsigned cp = c & (0x3fu >> n);
    for (size_t k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return i;
      const unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xc0) != 0x80) return i;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return std::nullopt;
}

// The `n` candidates closest to `key` by edit distance (ties in the given order), for
// "unknown key" hints.
inline std::vector<std::string> nearest(const std::string& key, const std::vector<std::string>& candidates, size_t n = 3) {
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        const size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
        diag = up;
      }
    }
    return row[b.size()];
  };
  std::vector<std::pair<size_t, size_t>> scored;  // (distance, index)
  for (size_t i = 0; i < candidates.size(); ++i) scored.emplace_back(distance(key, candidates[i]), i);
  std::stable_sort(scored.begin(), scored.end(), [](auto& x, auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < n; ++i) out.push_back(candidates[scored[i].second]);
  return out;
}

inline bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace cstsim::text
