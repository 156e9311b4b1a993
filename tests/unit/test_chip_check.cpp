// --verify across chips (models/array/chip_check.h): chip shares cut from one GEMM, put together
// as the chips' results are, give that GEMM; a wrong value or a chip's part in the wrong place is
// found and named.
#include <gtest/gtest.h>

#include "models/array/chip_check.h"

namespace cstsim {
namespace {

std::vector<std::vector<double>> reference_parts(const GemmData& whole, bool n_cut, int chips, int64_t chunk) {
  std::vector<std::vector<double>> parts;
  for (int c = 0; c < chips; ++c) parts.push_back(reference_gemm(chip_share(whole, n_cut, c, chips), chunk));
  return parts;
}

std::vector<const std::vector<double>*> pointers(const std::vector<std::vector<double>>& parts) {
  std::vector<const std::vector<double>*> p;
  for (const auto& v : parts) p.push_back(&v);
  return p;
}

TEST(ChipCheck, SharesAreCutFromTheWholeOperands) {
  const GemmData whole = make_random_gemm(3, 8, 12, 7);
  const GemmData cols = chip_share(whole, true, 2, 4), rows = chip_share(whole, false, 1, 4);
  EXPECT_EQ(cols.N, 2);
  EXPECT_EQ(cols.K, 12);
  EXPECT_EQ(cols.B[size_t(5 * 2 + 1)], whole.B[size_t(5 * 8 + 2 * 2 + 1)]);  // B[5][5]
  EXPECT_EQ(cols.A, whole.A);
  EXPECT_EQ(rows.K, 3);
  EXPECT_EQ(rows.A[size_t(2 * 3 + 1)], whole.A[size_t(2 * 12 + 3 + 1)]);  // A[2][4]
  EXPECT_EQ(rows.B[size_t(2 * 8 + 7)], whole.B[size_t(5 * 8 + 7)]);       // B[5][7]
}

// Integers wrap at the accumulator's width, so the chips' partial sums added give the whole GEMM
// exactly; columns side by side give it bit for bit in any type.
TEST(ChipCheck, IntegerPartsPutTogetherGiveTheWholeGemm) {
  for (bool n_cut : {true, false}) {
    const GemmData whole = make_random_gemm(5, 16, 32, 11);
    const auto parts = reference_parts(whole, n_cut, 4, 8);
    const ChipsCombined r = check_chips_combined(whole, n_cut, 8, pointers(parts));
    EXPECT_TRUE(r.passed) << r.detail;
  }
  // The sum wraps like an int32 register: two partials near 2^31 add to a negative value.
  const std::vector<double> a{2147483000.0}, b{1000.0};
  const std::vector<double> sum = add_partial_sums(NumType::Int8, NumType::Int32, {&a, &b});
  EXPECT_EQ(sum[0], 2147484000.0 - 4294967296.0);
}

TEST(ChipCheck, AWrongValueOrAPartInTheWrongPlaceIsNamed) {
  const GemmData whole = make_random_gemm(4, 8, 16, 3);
  auto rows = reference_parts(whole, false, 2, 4);
  rows[1][size_t(2 * 8 + 5)] += 1;  // chip 1's partial sum of C[2][5]
  ChipsCombined r = check_chips_combined(whole, false, 4, pointers(rows));
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.detail.find("C[2][5]"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("added"), std::string::npos) << r.detail;
  auto cols = reference_parts(whole, true, 2, 4);
  std::swap(cols[0], cols[1]);  // chip 1's columns where chip 0's belong
  r = check_chips_combined(whole, true, 4, pointers(cols));
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.detail.find("side by side"), std::string::npos) << r.detail;
  cols.pop_back();
  cols.push_back({1.0});  // a part of the wrong size
  EXPECT_NE(check_chips_combined(whole, true, 4, pointers(cols)).detail.find("chip 1 holds 1 outputs"), std::string::npos);
}

// Floats: a row split's sum depends on its order; the chips' grids added in chip order must equal
// their reference partials added so, and stay within fp32's rounding of the fp64 GEMM.
TEST(ChipCheck, FloatRowSplitIsExactInItsOrderAndCloseToFp64) {
  Precision p;
  p.operand = NumType::Bf16;
  p.accumulator = NumType::Fp32;
  const GemmData whole = make_random_gemm(6, 8, 64, 5, p);
  const auto parts = reference_parts(whole, false, 4, 16);
  const ChipsCombined r = check_chips_combined(whole, false, 16, pointers(parts));
  EXPECT_TRUE(r.passed) << r.detail;
  EXPECT_GT(r.max_relative_error, 0.0);
  EXPECT_LT(r.max_relative_error, 64 * 0x1p-24);  // at most one rounding per value added
}

}  // namespace
}  // namespace cstsim
