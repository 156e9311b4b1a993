#include "models/base/stall_causes.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace cstsim {

int64_t total(const StallCauses& causes) {
  int64_t n = 0;
  for (const auto& [cause, cycles] : causes) n += cycles;
  return n;
}

StallCauses shrink(const StallCauses& causes, int64_t n) {
  const int64_t all = total(causes);
  if (n < 0 || n > all) throw std::logic_error("stall causes: cannot shrink to more than they hold, or below 0");
  if (n == all) return causes;
  StallCauses out;
  if (n == 0) return out;
  struct Part {
    const std::string* cause;
    int64_t remainder;
  };
  std::vector<Part> parts;
  int64_t given = 0;
  for (const auto& [cause, cycles] : causes) {
    // cycles * n fits in 64 bits for any run shorter than 3e9 cycles per layer.
    const __int128 scaled = __int128(cycles) * n;
    const int64_t whole = int64_t(scaled / all);
    if (whole > 0) out[cause] = whole;
    given += whole;
    parts.push_back({&cause, int64_t(scaled % all)});
  }
  std::stable_sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.remainder > b.remainder; });
  for (size_t i = 0; given < n; ++i, ++given) ++out[*parts[i].cause];
  return out;
}

StallCauses split_like(const StallCauses& shares, int64_t n, const std::string& otherwise) {
  if (n <= 0) return {};
  if (total(shares) == 0) return {{otherwise, n}};
  if (n <= total(shares)) return shrink(shares, n);
  // Scaled up: every cause times k, then the rest shrunk from the shares.
  const int64_t k = n / total(shares);
  StallCauses out;
  for (const auto& [cause, cycles] : shares) out[cause] = cycles * k;
  add(out, shrink(shares, n - k * total(shares)));
  return out;
}

void add(StallCauses& into, const StallCauses& more) {
  for (const auto& [cause, cycles] : more)
    if (cycles != 0) into[cause] += cycles;
}

}  // namespace cstsim
