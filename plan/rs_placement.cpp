#include "plan/rs_placement.h"

#include <algorithm>
#include <stdexcept>

namespace cstsim {

RsPlacement place_rs(const RsConv& conv, int rows, int cols, int64_t strip_width) {
  if (rows < 1 || cols < 1) throw std::invalid_argument("place_rs: an array of at least one PE");
  RsPlacement p;
  p.height = std::min<int64_t>(conv.R, rows);
  p.row_folds = (conv.R + rows - 1) / rows;
  const int64_t E = conv.E();
  if (E <= cols) {  // the whole width fits: replicate across and down
    p.width = E;
    p.across = cols / E;
    p.down = rows / p.height;
    return p;
  }
  const int64_t segments = (E + cols - 1) / cols;
  if (segments * p.height <= rows) {  // the set fits cut into segments stacked vertically
    p.width = E;
    p.segments = segments;
    p.down = rows / (segments * p.height);
    return p;
  }
  // Strip-mine: strips as wide as the array by default (the most ifmap-row reuse along the
  // diagonals); narrower ones side by side hold fewer psums each in the global buffer (the
  // chip's choice for AlexNet CONV1, the same 154 PEs), which the pass planner weighs.
  p.width = strip_width > 0 ? std::min<int64_t>(strip_width, cols) : cols;
  p.strips = (E + p.width - 1) / p.width;
  p.across = cols / p.width;
  p.down = rows / p.height;
  return p;
}

}  // namespace cstsim
