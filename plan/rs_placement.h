#pragma once
// Row-stationary (Eyeriss; research in docs/design/row-stationary.md): where a convolution's
// logical PE sets lie on the physical array. A logical set is R PEs high (one filter row each)
// and E wide (one ofmap row each): filter rows are reused across a PE row, ifmap rows along the
// diagonals (PE (r, e) reads ifmap row U*e + r), psums add up a column. plan/rs_plan.h
// makes the passes from the placement.
#include <cstdint>

namespace cstsim {

// What the placement needs of a convolution: its rows.
struct RsConv {
  int64_t R = 1;  // filter rows
  int64_t H = 1;  // ifmap rows, padding included
  int64_t U = 1;  // stride
  int64_t E() const { return (H - R) / U + 1; }  // ofmap rows
};

// How the logical sets fold onto a rows x cols array (JSSC 2017 §IV-A's three cases):
//  - a set taller than the array is cut into `row_folds` pieces of filter rows, one after another,
//    their psums added in the global buffer;
//  - a set wider than the array is either cut into `segments` stacked vertically, when they fit
//    (AlexNet CONV2: 5 x 27 as 5 x 14 over 5 x 13), or strip-mined: `strips` sets of `width` ofmap
//    rows one after another (CONV1: 11 x 55 in strips of 14);
//  - sets smaller than the array are replicated `down` x `across` times, each with other channels
//    or filters (CONV3: four 3 x 13 sets stacked).
struct RsPlacement {
  int64_t height = 1;     // PE rows of a set (min(R, rows))
  int64_t row_folds = 1;  // pieces of R, one after another
  int64_t width = 1;      // ofmap rows a set computes at once (columns it spans, before segmenting)
  int64_t strips = 1;     // ceil(E / width)
  int64_t segments = 1;   // pieces of a set's width, stacked vertically
  int64_t down = 1, across = 1;  // replicated sets
  // PEs holding work while a full strip runs (the published "active PEs").
  int64_t active_pes() const { return height * width * down * across; }
};

// The placement of `conv` on a rows x cols array; rows and cols at least 1. A set that must be
// strip-mined takes strips `strip_width` ofmap rows wide (0: the array's width), as many side by
// side as fit (AlexNet CONV1 on Eyeriss: 7-wide strips, two across).
RsPlacement place_rs(const RsConv& conv, int rows, int cols, int64_t strip_width = 0);

}  // namespace cstsim
