#include "models/array/array_events.h"

#include <algorithm>

#include <fmt/format.h>

namespace cstsim {

const char* to_string(EventKind kind) {
  switch (kind) {
    case EventKind::FoldStart: return "fold_start";
    case EventKind::FirstInput: return "first_input";
    case EventKind::LastInput: return "last_input";
    case EventKind::OutputRow: return "output_row";
    case EventKind::FoldEnd: return "fold_end";
  }
  return "?";
}

std::string describe(const ArrayEvent& e) {
  if (e.kind == EventKind::OutputRow)
    return fmt::format("{} fold {} row {} at cycle {}", to_string(e.kind), e.fold, e.index, e.cycle);
  return fmt::format("{} fold {} at cycle {}", to_string(e.kind), e.fold, e.cycle);
}

std::string first_difference(std::vector<ArrayEvent> expected, std::vector<ArrayEvent> actual) {
  std::sort(expected.begin(), expected.end());
  std::sort(actual.begin(), actual.end());
  size_t n = std::min(expected.size(), actual.size());
  for (size_t i = 0; i < n; ++i) {
    if (!(expected[i] == actual[i]))
      return fmt::format("event {}: expected {}, got {}", i, describe(expected[i]), describe(actual[i]));
  }
  if (expected.size() != actual.size())
    return fmt::format("expected {} events, got {}", expected.size(), actual.size());
  return "";
}

}  // namespace cstsim
