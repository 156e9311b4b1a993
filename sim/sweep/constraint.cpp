#include "sim/sweep/constraint.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include <boost/fusion/include/at_c.hpp>
#include <boost/spirit/home/x3.hpp>
#include <fmt/format.h>

#include "core/input_error.h"
#include "core/text.h"

namespace cstsim::sweep {

// One node of the expression: a leaf (number, string literal, key) or an operator on a and b.
struct Constraint::Node {
  enum Kind { Number, String, Key, Unary, Binary } kind = Number;
  std::string text;  // the literal, key or operator
  double number = 0;
  std::shared_ptr<const Node> a, b;
};

namespace {

using Node = Constraint::Node;
using NodePtr = std::shared_ptr<const Node>;
namespace x3 = boost::spirit::x3;
using boost::fusion::at_c;

NodePtr leaf(Node::Kind kind, std::string text, double number = 0) {
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->text = std::move(text);
  n->number = number;
  return n;
}
NodePtr make_op(std::string op, NodePtr a, NodePtr b = nullptr) {
  auto n = std::make_shared<Node>();
  n->kind = b ? Node::Binary : Node::Unary;
  n->text = std::move(op);
  n->a = std::move(a);
  n->b = std::move(b);
  return n;
}

// Semantic actions: each rule's attribute is the node built so far.
const auto take = [](auto& ctx) { x3::_val(ctx) = x3::_attr(ctx); };
const auto fold = [](auto& ctx) {  // _val := _val OP operand, OP parsed
  x3::_val(ctx) = make_op(std::string(1, at_c<0>(x3::_attr(ctx))), x3::_val(ctx), at_c<1>(x3::_attr(ctx)));
};
const auto fold_compare = [](auto& ctx) {
  x3::_val(ctx) = make_op(at_c<0>(x3::_attr(ctx)), x3::_val(ctx), at_c<1>(x3::_attr(ctx)));
};
const auto fold_and = [](auto& ctx) { x3::_val(ctx) = make_op("&&", x3::_val(ctx), x3::_attr(ctx)); };
const auto fold_or = [](auto& ctx) { x3::_val(ctx) = make_op("||", x3::_val(ctx), x3::_attr(ctx)); };
const auto negate = [](auto& ctx) { x3::_val(ctx) = make_op("-", x3::_attr(ctx)); };
const auto invert = [](auto& ctx) { x3::_val(ctx) = make_op("!", x3::_attr(ctx)); };
const auto number = [](auto& ctx) {
  x3::_val(ctx) = leaf(Node::Number, fmt::format("{}", x3::_attr(ctx)), x3::_attr(ctx));
};
const auto string = [](auto& ctx) { x3::_val(ctx) = leaf(Node::String, x3::_attr(ctx)); };
const auto key = [](auto& ctx) { x3::_val(ctx) = leaf(Node::Key, x3::_attr(ctx)); };

// Unsigned reals without `inf` and `nan` (those are barewords, so unknown keys).
struct FinitePolicies : x3::ureal_policies<double> {
  template <typename It, typename Attr>
  static bool parse_nan(It&, const It&, Attr&) { return false; }
  template <typename It, typename Attr>
  static bool parse_inf(It&, const It&, Attr&) { return false; }
};
const x3::real_parser<double, FinitePolicies> real;

const x3::rule<class expr_id, NodePtr> expr = "expression";
const x3::rule<class conj_id, NodePtr> conj = "conjunction";
const x3::rule<class negation_id, NodePtr> negation = "negation";
const x3::rule<class comparison_id, NodePtr> comparison = "comparison";
const x3::rule<class sum_id, NodePtr> sum = "sum";
const x3::rule<class product_id, NodePtr> product = "product";
const x3::rule<class unary_id, NodePtr> unary = "unary";
const x3::rule<class primary_id, NodePtr> primary = "primary";
const x3::rule<class identifier_id, std::string> identifier = "key";
const x3::rule<class quoted_id, std::string> quoted = "string";

const x3::rule<class compare_op_id, std::string> compare_op = "comparison operator";
const x3::rule<class add_op_id, char> add_op = "'+' or '-'";
const x3::rule<class mul_op_id, char> mul_op = "'*' or '/'";
const auto compare_op_def = x3::string("==") | x3::string("!=") | x3::string("<=") | x3::string(">=") |
                            x3::string("<") | x3::string(">");
const auto add_op_def = x3::char_('+') | x3::char_('-');
const auto mul_op_def = x3::char_('*') | x3::char_('/');
const auto expr_def = conj[take] >> *(("||" >> conj)[fold_or]);
const auto conj_def = negation[take] >> *(("&&" >> negation)[fold_and]);
const auto negation_def = (x3::lexeme['!' >> !x3::lit('=')] >> negation)[invert] | comparison[take];
const auto comparison_def = sum[take] >> -((compare_op >> sum)[fold_compare]);
const auto sum_def = product[take] >> *((add_op >> product)[fold]);
const auto product_def = unary[take] >> *((mul_op >> unary)[fold]);
const auto unary_def = ('-' >> unary)[negate] | primary[take];
const auto primary_def = identifier[key] | real[number] | quoted[string] | ('(' >> expr >> ')')[take];
const auto identifier_def = x3::lexeme[(x3::alpha | x3::char_('_')) >> *(x3::alnum | x3::char_("_."))];
const auto quoted_def = x3::lexeme['\'' >> *(x3::char_ - '\'') >> '\''] | x3::lexeme['"' >> *(x3::char_ - '"') >> '"'];
BOOST_SPIRIT_DEFINE(expr, conj, negation, comparison, sum, product, unary, primary, identifier, quoted, compare_op,
                    add_op, mul_op)

bool is_comparison(const std::string& op) {
  return op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=";
}
bool is_arithmetic(const std::string& op) { return op == "+" || op == "-" || op == "*" || op == "/"; }

// What a node gives, as far as it is known before a point: a key may be a number or text.
enum class Type { Number, Text, Truth, Either };

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
  // Keys, numbers and quoted values are ASCII; other bytes would reach Spirit's character classes,
  // which take only ASCII (a byte >= 0x80 is undefined behaviour there: found by tests/fuzz).
  for (size_t i = 0; i < c.text_.size(); ++i)
    if (static_cast<unsigned char>(c.text_[i]) >= 0x80 || (static_cast<unsigned char>(c.text_[i]) < 0x20 && c.text_[i] != '\t'))
      fail(fmt::format("byte 0x{:02x} at column {}: a constraint is ASCII text on one line",
                       static_cast<unsigned char>(c.text_[i]), i + 1));

  // The parser recurses once per '(' , '!' and unary '-': a bound far above any real constraint
  // keeps a pathological one from overflowing the stack (found by tests/fuzz).
  constexpr long kMaxNesting = 128;
  if (std::count_if(c.text_.begin(), c.text_.end(), [](char ch) { return ch == '(' || ch == '!' || ch == '-'; }) >
      kMaxNesting)
    fail(fmt::format("more than {} of '(', '!' and '-': too deep to be a constraint", kMaxNesting));
  auto first = c.text_.cbegin();
  const auto last = c.text_.cend();
  NodePtr root;
  const bool parsed = x3::phrase_parse(first, last, expr, x3::space, root);
  if (!parsed || first != last) {  // the parser stopped at `first`: say what follows it
    auto at = first;
    while (at != last && std::isspace(static_cast<unsigned char>(*at))) ++at;
    auto operand = at;  // past an operator whose operand is missing or bad
    while (operand != last && std::string_view("=!<>&|+-*/").find(*operand) != std::string_view::npos) ++operand;
    const std::string op(at, operand);
    while (operand != last && std::isspace(static_cast<unsigned char>(*operand))) ++operand;
    auto column = [&](auto it) { return size_t(it - c.text_.cbegin()) + 1; };
    if (op == "=") fail(fmt::format("'=' at column {}: write == to compare", column(at)));
    if (std::count(c.text_.begin(), c.text_.end(), '(') > std::count(c.text_.begin(), c.text_.end(), ')'))
      fail("a '(' is never closed");
    if (operand == last) fail("expected a key or a value at the end");
    if (*operand == '\'' || *operand == '"') fail(fmt::format("unterminated string starting at column {}", column(operand)));
    fail(fmt::format("unexpected '{}' at column {}", std::string(at, std::min(last, at + 8)), column(at)));
  }

  bool names_a_key = false;
  std::function<Type(const Node&)> check = [&](const Node& n) -> Type {
    switch (n.kind) {
      case Node::Number: return Type::Number;
      case Node::String: return Type::Text;
      case Node::Key:
        if (!is_key(n.text))
          fail(fmt::format("unknown key '{}' (a bareword must be a config key, workload or batch; quote string "
                           "literals)", n.text));
        names_a_key = true;
        return Type::Either;
      case Node::Unary: {
        const Type a = check(*n.a);
        if (n.text == "!") {
          if (a != Type::Truth) fail("'!' negates a comparison, not a value");
          return Type::Truth;
        }
        if (a == Type::Text || a == Type::Truth) fail("'-' needs a number");
        return Type::Number;
      }
      case Node::Binary: break;
    }
    const Type a = check(*n.a), b = check(*n.b);
    if (is_arithmetic(n.text)) {
      if (a == Type::Text || b == Type::Text) fail(fmt::format("'{}' on a string", n.text));
      if (a == Type::Truth || b == Type::Truth) fail(fmt::format("'{}' on a comparison's truth", n.text));
      return Type::Number;
    }
    if (is_comparison(n.text)) {
      if (a == Type::Truth || b == Type::Truth)
        fail(fmt::format("'{}' compares a comparison (join comparisons with && or ||)", n.text));
      if (n.text != "==" && n.text != "!=" && (a == Type::Text || b == Type::Text))
        fail(fmt::format("'{}' orders a string", n.text));
      return Type::Truth;
    }
    if (a != Type::Truth || b != Type::Truth) fail(fmt::format("'{}' joins comparisons, not values", n.text));
    return Type::Truth;
  };
  if (check(*root) != Type::Truth) fail("expected a comparison (== != < <= > >=)");
  if (!names_a_key) fail("the comparison names no key");
  c.root_ = std::move(root);
  return c;
}

bool Constraint::holds(const std::function<std::string(const std::string&)>& value) const {
  struct Val {
    bool numeric = false;
    double number = 0;
    std::string text;  // as written, or the number's shortest form
    bool truth = false;
  };
  auto bad = [&](const std::string& msg) {
    throw InputError(file_, line_, "constraints", fmt::format("bad constraint {}: {}", text::quoted(text_), msg));
  };
  std::function<Val(const Node&)> eval = [&](const Node& n) -> Val {
    switch (n.kind) {
      case Node::Number: return {true, n.number, n.text};
      case Node::String: return {false, 0, n.text};
      case Node::Key: {
        const std::string v = value(n.text);
        const auto d = text::parse_double(v);
        return {d.has_value(), d.value_or(0), v};
      }
      default: break;
    }
    auto number = [&](const Node& side) {
      const Val v = eval(side);
      if (!v.numeric) bad(fmt::format("{} is {}, not a number", side.kind == Node::Key ? side.text : "a value", text::quoted(v.text)));
      return v.number;
    };
    const std::string& op = n.text;
    if (n.kind == Node::Unary) {
      if (op == "!") return {false, 0, "", !eval(*n.a).truth};
      const double x = -number(*n.a);
      return {true, x, fmt::format("{}", x)};
    }
    if (op == "&&") return {false, 0, "", eval(*n.a).truth && eval(*n.b).truth};
    if (op == "||") return {false, 0, "", eval(*n.a).truth || eval(*n.b).truth};
    if (is_arithmetic(op)) {
      const double a = number(*n.a), b = number(*n.b);
      const double x = op == "+" ? a + b : op == "-" ? a - b : op == "*" ? a * b : a / b;
      return {true, x, fmt::format("{}", x)};
    }
    const Val l = eval(*n.a), r = eval(*n.b);
    if (l.numeric && r.numeric) {
      const double a = l.number, b = r.number;
      return {false, 0, "",
              op == "==" ? a == b : op == "!=" ? a != b : op == "<" ? a < b : op == "<=" ? a <= b : op == ">" ? a > b : a >= b};
    }
    if (op != "==" && op != "!=")
      bad(fmt::format("'{}' needs numbers, got {} and {}", op, text::quoted(l.text), text::quoted(r.text)));
    return {false, 0, "", (l.text == r.text) == (op == "==")};
  };
  return eval(*root_).truth;
}

}  // namespace cstsim::sweep
