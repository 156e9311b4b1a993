#include "models/array/chip_check.h"

#include <cstring>
#include <type_traits>

#include <fmt/format.h>

#include "models/array/grid_arith.h"

namespace cstsim {

std::vector<double> add_partial_sums(NumType operand, NumType accumulator,
                                     const std::vector<const std::vector<double>*>& parts) {
  return with_grid_arith(operand, [&](auto arith) {
    using Arith = decltype(arith);
    using Acc = typename Arith::Acc;
    auto acc = [](double v) {
      if constexpr (std::is_same_v<Acc, float>) return float(v);
      else return Acc(uint32_t(int32_t(int64_t(v))));  // a two's complement value of at most 32 bits
    };
    std::vector<double> out(parts.front()->size());
    for (size_t i = 0; i < out.size(); ++i) {
      Acc s = acc((*parts.front())[i]);
      for (size_t c = 1; c < parts.size(); ++c) s = Arith::add(s, acc((*parts[c])[i]));
      out[i] = Arith::value(s, bits_of(accumulator));
    }
    return out;
  });
}

ChipsCombined check_chips_combined(const GemmData& whole, bool n_cut, int64_t chunk,
                                   const std::vector<const std::vector<double>*>& parts) {
  const int chips = int(parts.size());
  const int64_t share_n = n_cut ? whole.N / chips : whole.N;
  ChipsCombined r;
  for (int c = 0; c < chips; ++c)
    if (int64_t(parts[size_t(c)]->size()) != whole.M * share_n) {
      r.passed = false;
      r.detail = fmt::format("chip {} holds {} outputs, its share has {}", c, parts[size_t(c)]->size(), whole.M * share_n);
      return r;
    }
  std::vector<double> got, want;
  if (n_cut) {
    got.resize(size_t(whole.M * whole.N));
    for (int c = 0; c < chips; ++c)
      for (int64_t m = 0; m < whole.M; ++m)
        for (int64_t n = 0; n < share_n; ++n)
          got[size_t(m * whole.N + c * share_n + n)] = (*parts[size_t(c)])[size_t(m * share_n + n)];
    want = reference_gemm(whole, chunk);
  } else {
    got = add_partial_sums(whole.operand, whole.accumulator, parts);
    if (is_float(whole.operand)) {
      std::vector<std::vector<double>> refs;
      for (int c = 0; c < chips; ++c) refs.push_back(reference_gemm(chip_share(whole, false, c, chips), chunk));
      std::vector<const std::vector<double>*> ref_parts;
      for (const auto& v : refs) ref_parts.push_back(&v);
      want = add_partial_sums(whole.operand, whole.accumulator, ref_parts);
    } else {
      want = reference_gemm(whole, chunk);
    }
  }
  for (size_t i = 0; i < want.size(); ++i)
    if (std::memcmp(&want[i], &got[i], sizeof(double)) != 0) {
      r.passed = false;
      r.detail = fmt::format("value: C[{}][{}] = {} from the chips' grids {}, the whole GEMM gives {} ({})",
                             int64_t(i) / whole.N, int64_t(i) % whole.N, got[i],
                             n_cut ? "side by side" : "added", want[i], to_string(whole.operand));
      break;
    }
  r.max_relative_error = max_relative_error(got, whole);
  return r;
}

}  // namespace cstsim
