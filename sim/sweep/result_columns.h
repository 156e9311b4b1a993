#pragma once
// What each results.csv column is: its unit, one line on what it measures, and the column it
// equals by definition (a figure reports.json and summary.json both carry under two names), so
// that collect writes each figure once and results.columns.csv explains every column.
#include <string>
#include <vector>

namespace cstsim::sweep {

struct ColumnInfo {
  std::string unit;     // "" for counts without a unit, names and text
  std::string what;     // one line
  std::string same_as;  // the column this one equals by definition ("" : none)
};

// `params`: the sweep's parameter keys (config keys: their unit comes from the arch schema).
ColumnInfo column_info(const std::string& column, const std::vector<std::string>& params);

}  // namespace cstsim::sweep
