#pragma once
// Sweep constraints: expressions over a point's parameters that a grid point must satisfy to
// be kept, e.g.
//
//   array.rows == array.cols
//   (sram.ifmap_kib + sram.filter_kib + sram.ofmap_kib) * 1024 <= 2 * 1024 * 1024
//   dataflow != 'is' || batch == 1
//   !(array.rows > 64 && dataflow == 'os')
//
// Grammar (parsed with Boost.Spirit X3; C's precedence, lowest first):
//   expr    := and ('||' and)*
//   and     := not ('&&' not)*
//   not     := '!' not | cmp
//   cmp     := sum (OP sum)?                OP: == != < <= > >=
//   sum     := product (('+' | '-') product)*
//   product := unary (('*' | '/') unary)*
//   unary   := '-' unary | primary
//   primary := KEY | NUMBER | 'string' | "string" | '(' expr ')'
// A bareword must name a key (a config key, `workload` or `batch`); string literals are quoted.
// The whole must be true or false and name a key. Arithmetic and ordering need numbers; == and
// != compare numbers as numbers and anything else as text. What can be checked without a point
// (a string in arithmetic, an ordered string literal, && on a number) is an error when the spec
// is read; a key whose value turns out not to be a number where one is needed, when the point is.
#include <functional>
#include <memory>
#include <string>

namespace cstsim::sweep {

class Constraint {
 public:
  // Throws InputError(file, line, "constraints", ...) on a syntax error, an unknown key or a
  // type error.
  static Constraint parse(const std::string& text, const std::string& file, int line,
                          const std::function<bool(const std::string&)>& is_key);

  // `value(key)` gives a key's value at the point, as text. Throws InputError when a
  // number is needed and a value is not one.
  bool holds(const std::function<std::string(const std::string&)>& value) const;

  const std::string& text() const { return text_; }
  int line() const { return line_; }

  struct Node;  // the parsed expression (constraint.cpp)

 private:
  std::string text_, file_;
  int line_ = 0;
  std::shared_ptr<const Node> root_;
};

}  // namespace cstsim::sweep
