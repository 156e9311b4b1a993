// The validation table (validation/README.md) cannot drift: validation/run.sh reruns every study
// and each row must stay within a percentage point of the error recorded in
// validation/expected.csv, and within its bound where it met it.
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/sim/cli_fixture.h"

namespace {

// quantity -> (error %, bound % or -1), from a table.csv (validation/table.py).
std::map<std::string, std::pair<double, double>> errors(const std::string& csv) {
  std::map<std::string, std::pair<double, double>> out;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // Python's csv ends rows with CRLF
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      else if (c == ',' && !quoted) cells.push_back(cell), cell.clear();
      else cell += c;
    }
    cells.push_back(cell);
    // system, quantity, reference, cstsim, unit, error_pct, role, bound_pct
    out[cells.at(0) + ": " + cells.at(1)] = {std::stod(cells.at(5)), cells.at(7).empty() ? -1.0 : std::stod(cells.at(7))};
  }
  return out;
}

TEST_F(Cli, ValidationLongTableHoldsItsRows) {
  const fs::path build = fs::path(CSTSIM_BINARY).parent_path();
  const Result r = script("validation/run.sh " + build.string() + " " + (dir_ / "v").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto expected = errors(slurp(src("validation/expected.csv")));
  const auto now = errors(slurp(dir_ / "v" / "table.csv"));
  ASSERT_EQ(now.size(), expected.size());
  for (const auto& [quantity, e] : expected) {
    ASSERT_TRUE(now.count(quantity)) << quantity;
    const auto [error, bound] = now.at(quantity);
    EXPECT_NEAR(error, e.first, 1.0) << quantity;
    if (e.second >= 0 && std::abs(e.first) <= e.second) EXPECT_LE(std::abs(error), e.second) << quantity;
  }
}

}  // namespace
