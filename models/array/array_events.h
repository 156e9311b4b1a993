#pragma once
// The events that define an array's timing. Both the register-level reference
// and the closed-form timing model produce exactly this list; tests compare them.
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace cstsim {

enum class EventKind : uint8_t {
  FoldStart,   // first cycle the fold uses the array (WS/IS: weight load; OS: first operand)
  FirstInput,  // first streamed operand enters the array edge
  LastInput,   // last operand of the fold enters the array edge
  OutputRow,   // the last element of one output row leaves the array (index = row)
  FoldEnd,     // last cycle the fold occupies the array
};

const char* to_string(EventKind kind);

struct ArrayEvent {
  int64_t cycle = 0;
  EventKind kind = EventKind::FoldStart;
  int fold = 0;
  int64_t index = 0;  // output row within the fold for OutputRow, else 0

  bool operator==(const ArrayEvent& o) const {
    return cycle == o.cycle && kind == o.kind && fold == o.fold && index == o.index;
  }
  bool operator<(const ArrayEvent& o) const {
    return std::tie(cycle, kind, fold, index) < std::tie(o.cycle, o.kind, o.fold, o.index);
  }
};

std::string describe(const ArrayEvent& e);

// Sorts both lists and returns "" when equal, else a description of the first difference.
std::string first_difference(std::vector<ArrayEvent> expected, std::vector<ArrayEvent> actual);

}  // namespace cstsim
