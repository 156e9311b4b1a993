#pragma once
// Stall cycles by cause (summary "stalls"): a layer's stall is its cycles minus the same
// plan's cycles with ideal memory, split so the parts add up exactly (models/dma/README.md,
// "Stalls by root cause").
#include <cstdint>
#include <map>
#include <string>

namespace cstsim {

using StallCauses = std::map<std::string, int64_t>;

int64_t total(const StallCauses& causes);

// `causes` scaled down to add up to n (0 <= n <= total): when a later fold's slack hides part
// of a delay, every cause keeps its share of what is left. Integer parts by largest remainder
// (ties to the cause first in name order), so the result adds up to n exactly.
StallCauses shrink(const StallCauses& causes, int64_t n);

void add(StallCauses& into, const StallCauses& more);

// n cycles split as `shares` are (largest remainder, adding up to n exactly); all of them to
// `otherwise` when the shares hold none. For an estimate that has no split of its own.
StallCauses split_like(const StallCauses& shares, int64_t n, const std::string& otherwise);

}  // namespace cstsim
