#pragma once
// Sweep constraints: small boolean expressions over a point's parameters that a
// grid point must satisfy to be kept, e.g.
//
//   array.rows == array.cols
//   array.rows * array.cols <= 16384
//   dataflow != 'is' || batch == 1
//
// Grammar (no parentheses; && binds tighter than ||):
//   expr   := conj ('||' conj)*
//   conj   := cmp ('&&' cmp)*
//   cmp    := side OP side          OP: == != < <= > >=
//   side   := atom ('*' atom)*
//   atom   := KEY | NUMBER | 'string' | "string"
// A bareword must name a key (a config key, `workload` or `batch`); string
// literals are quoted. Both sides numbers -> numeric comparison; otherwise ==
// and != compare text and an ordering or a product of non-numbers is an error.
#include <functional>
#include <string>
#include <vector>

namespace cstsim::sweep {

class Constraint {
 public:
  // Throws InputError(file, line, "constraints", ...) on a syntax error or an unknown key.
  static Constraint parse(const std::string& text, const std::string& file, int line,
                          const std::function<bool(const std::string&)>& is_key);

  // `value(key)` gives a key's value at the point, as text. Throws InputError when a
  // number is needed and a value is not one.
  bool holds(const std::function<std::string(const std::string&)>& value) const;

  const std::string& text() const { return text_; }
  int line() const { return line_; }

 private:
  struct Atom {
    enum Kind { Key, Number, String } kind = Key;
    std::string text;
    double number = 0;
  };
  struct Cmp {
    std::vector<Atom> lhs, rhs;  // products of atoms
    std::string op;
  };
  std::string text_, file_;
  int line_ = 0;
  std::vector<std::vector<Cmp>> any_of_;  // OR of ANDs
};

}  // namespace cstsim::sweep
