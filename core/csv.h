#pragma once
// RFC 4180 CSV, the one writer and reader of every CSV the tool writes and reads (traces, run
// tables, sweeps): a field is quoted when it holds a comma, a quote or a line break, quotes are
// doubled, so a layer named `a, "b"` survives every table.
#include <string>
#include <vector>

namespace cstsim::csv {

inline std::string field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

inline std::string row(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    out += field(fields[i]);
  }
  return out + "\n";
}

// Parses a whole CSV text into rows (blank lines skipped). Returns false on an
// unterminated quote; `bad_line` is then the 1-based line where it started.
inline bool parse(const std::string& text, std::vector<std::vector<std::string>>& rows, int* bad_line = nullptr) {
  rows.clear();
  std::vector<std::string> cur;
  std::string f;
  bool quoted = false, any = false;
  int line = 1, quote_line = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          f += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        f += c;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      quote_line = line;
      any = true;
    } else if (c == ',') {
      cur.push_back(f);
      f.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !f.empty()) {
        cur.push_back(f);
        rows.push_back(cur);
      }
      cur.clear();
      f.clear();
      any = false;
      ++line;
    } else {
      f += c;
      any = true;
    }
  }
  if (quoted) {
    if (bad_line) *bad_line = quote_line;
    return false;
  }
  if (any || !f.empty()) {
    cur.push_back(f);
    rows.push_back(cur);
  }
  return true;
}

}  // namespace cstsim::csv
