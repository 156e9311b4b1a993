#include "plan/rs_placement.h"

#include <algorithm>
#include <stdexcept>

namespace cstsim {

RsPlacement place_rs(const RsConv& conv, int rows, int cols) {
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
  // Strip-mine: strips as wide as the array (the most ifmap-row reuse along the diagonals; the
  // chip chose 7-wide strips two across for AlexNet CONV1, the same 154 PEs, to fit its psums in
  // the global buffer, a choice of the pass planner).
  p.width = cols;
  p.strips = (E + cols - 1) / cols;
  p.down = rows / p.height;
  return p;
}

}  // namespace cstsim
