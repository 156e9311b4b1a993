#include "sim/sweep/constraint.h"

#include <cctype>

#include <fmt/format.h>

#include "core/input_error.h"
#include "core/text.h"

namespace cstsim::sweep {
namespace {

struct Token {
  enum Kind { Word, Number, String, Op, End } kind = End;
  std::string text;
};

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'; }

std::vector<Token> tokenize(const std::string& s, const std::function<void(const std::string&)>& fail) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      const size_t end = s.find(c, i + 1);
      if (end == std::string::npos) fail(fmt::format("unterminated string starting at column {}", i + 1));
      out.push_back({Token::String, s.substr(i + 1, end - i - 1)});
      i = end + 1;
      continue;
    }
    auto two = s.substr(i, 2);
    if (two == "==" || two == "!=" || two == "<=" || two == ">=" || two == "&&" || two == "||") {
      out.push_back({Token::Op, two});
      i += 2;
      continue;
    }
    if (c == '<' || c == '>' || c == '*') {
      out.push_back({Token::Op, std::string(1, c)});
      ++i;
      continue;
    }
    if (c == '=') fail(fmt::format("'=' at column {}: write == to compare", i + 1));
    const bool signed_number = (c == '-' || c == '+') && i + 1 < s.size() &&
                               (std::isdigit(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '.');
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || signed_number) {
      size_t j = i + 1;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.' ||
                              ((s[j] == '-' || s[j] == '+') && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
        ++j;
      out.push_back({Token::Number, s.substr(i, j - i)});
      i = j;
      continue;
    }
    if (is_word_char(c)) {
      size_t j = i;
      while (j < s.size() && is_word_char(s[j])) ++j;
      out.push_back({Token::Word, s.substr(i, j - i)});
      i = j;
      continue;
    }
    fail(fmt::format("unexpected '{}' at column {}", c, i + 1));
  }
  out.push_back({Token::End, ""});
  return out;
}

bool is_comparison(const std::string& op) {
  return op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=";
}

}  // namespace

Constraint Constraint::parse(const std::string& text, const std::string& file, int line,
                             const std::function<bool(const std::string&)>& is_key) {
  auto fail = [&](const std::string& msg) {
    throw InputError(file, line, "constraints", fmt::format("bad constraint {}: {}", text::quoted(text), msg));
  };
  Constraint c;
  c.text_ = std::string(text::trim(text));
  c.file_ = file;
  c.line_ = line;
  if (c.text_.empty()) fail("empty");
  const std::vector<Token> toks = tokenize(c.text_, fail);
  size_t pos = 0;
  auto atom = [&]() {
    const Token& t = toks[pos];
    Atom a;
    switch (t.kind) {
      case Token::Word:
        if (!is_key(t.text))
          fail(fmt::format("unknown key '{}' (a bareword must be a config key, workload or batch; quote string "
                           "literals)", t.text));
        a = {Atom::Key, t.text, 0};
        break;
      case Token::Number: {
        const auto v = text::parse_double(t.text);
        if (!v) fail(fmt::format("'{}' is not a number", t.text));
        a = {Atom::Number, t.text, *v};
        break;
      }
      case Token::String: a = {Atom::String, t.text, 0}; break;
      case Token::Op: fail(fmt::format("expected a key or a value before '{}'", t.text)); break;
      case Token::End: fail("expected a key or a value at the end"); break;
    }
    ++pos;
    return a;
  };
  auto side = [&]() {
    std::vector<Atom> out{atom()};
    while (toks[pos].kind == Token::Op && toks[pos].text == "*") {
      ++pos;
      out.push_back(atom());
      if (out.back().kind == Atom::String) fail("a product of strings");
    }
    if (out.size() > 1 && out.front().kind == Atom::String) fail("a product of strings");
    return out;
  };
  std::vector<Cmp> conj;
  for (;;) {
    Cmp cmp;
    cmp.lhs = side();
    if (toks[pos].kind != Token::Op || !is_comparison(toks[pos].text))
      fail(toks[pos].kind == Token::End ? "expected a comparison (== != < <= > >=)"
                                        : fmt::format("expected a comparison, found '{}'", toks[pos].text));
    cmp.op = toks[pos++].text;
    cmp.rhs = side();
    bool has_key = false;
    for (const auto* s : {&cmp.lhs, &cmp.rhs})
      for (const Atom& a : *s) has_key |= a.kind == Atom::Key;
    if (!has_key) fail("the comparison names no key");
    if (cmp.op != "==" && cmp.op != "!=")
      for (const auto* s : {&cmp.lhs, &cmp.rhs})
        if (s->size() == 1 && s->front().kind == Atom::String) fail(fmt::format("'{}' orders a string", cmp.op));
    conj.push_back(std::move(cmp));
    const Token& t = toks[pos];
    if (t.kind == Token::End) break;
    if (t.kind == Token::Op && (t.text == "&&" || t.text == "||")) {
      ++pos;
      if (t.text == "||") {
        c.any_of_.push_back(std::move(conj));
        conj.clear();
      }
      continue;
    }
    fail(fmt::format("unexpected '{}' after a comparison (join comparisons with && or ||)", t.text));
  }
  c.any_of_.push_back(std::move(conj));
  return c;
}

bool Constraint::holds(const std::function<std::string(const std::string&)>& value) const {
  struct Val {
    bool numeric;
    double number;
    std::string text;
  };
  auto eval = [&](const std::vector<Atom>& side) -> Val {
    if (side.size() == 1) {
      const Atom& a = side.front();
      if (a.kind == Atom::Number) return {true, a.number, a.text};
      if (a.kind == Atom::String) return {false, 0, a.text};
      const std::string v = value(a.text);
      const auto d = text::parse_double(v);
      return {d.has_value(), d.value_or(0), v};
    }
    double p = 1;
    for (const Atom& a : side) {
      if (a.kind == Atom::Number) {
        p *= a.number;
        continue;
      }
      const std::string v = value(a.text);
      const auto d = text::parse_double(v);
      if (!d)
        throw InputError(file_, line_, "constraints",
                         fmt::format("bad constraint {}: {} is {}, not a number", text::quoted(text_), a.text,
                                     text::quoted(v)));
      p *= *d;
    }
    return {true, p, ""};
  };
  for (const auto& conj : any_of_) {
    bool all = true;
    for (const Cmp& c : conj) {
      const Val l = eval(c.lhs), r = eval(c.rhs);
      bool ok;
      if (l.numeric && r.numeric) {
        const double a = l.number, b = r.number;
        ok = c.op == "==" ? a == b : c.op == "!=" ? a != b : c.op == "<" ? a < b : c.op == "<=" ? a <= b
             : c.op == ">" ? a > b : a >= b;
      } else if (c.op == "==" || c.op == "!=") {
        ok = (l.text == r.text) == (c.op == "==");
      } else {
        throw InputError(file_, line_, "constraints",
                         fmt::format("bad constraint {}: '{}' needs numbers, got {} and {}", text::quoted(text_),
                                     c.op, text::quoted(l.text), text::quoted(r.text)));
      }
      if (!ok) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

}  // namespace cstsim::sweep
