// One dtype vocabulary: the graph reader and the ledger read core/num_type.h's table, and the
// formats the accelerator never holds (fp64, tf32) stay out of what configs and graphs accept.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/num_type.h"
#include "sim/config/arch_schema.h"
#include "sim/ledger/ops.h"
#include "sim/workload/graph.h"

namespace cstsim {
namespace {

TEST(DtypeVocabulary, GraphAndLedgerReadTheNumTypeTable) {
  for (const std::string& name : all_num_type_names()) {
    SCOPED_TRACE(name);
    const NumType t = *num_type_named(name);
    ASSERT_TRUE(ledger::parse_dtype(name));
    EXPECT_EQ(ledger::parse_dtype(name)->bytes, bits_of(t) / 8.0);
    EXPECT_EQ(dtype_bits(name), on_chip(t) ? bits_of(t) : 0);
  }
  EXPECT_EQ(dtype_bits("fp8"), 8);  // the short name, as fp8_e4m3
  EXPECT_EQ(ledger::parse_dtype("fp8")->name, "fp8");  // printed as the user wrote it
  EXPECT_EQ(ledger::parse_dtype("fp64")->bytes, 8);
  EXPECT_EQ(ledger::parse_dtype("tf32")->bytes, 4);
  EXPECT_EQ(ledger::parse_dtype("int4")->bytes, 0.5);
  EXPECT_FALSE(ledger::parse_dtype("fp12"));
  EXPECT_EQ(dtype_bits("fp64"), 0);
  EXPECT_EQ(dtype_bits("fp12"), 0);
}

TEST(DtypeVocabulary, OffChipFormatsAreNoArchChoice) {
  const std::vector<std::string>& operand = arch_schema().find("precision.operand")->choices;
  EXPECT_EQ(std::count(operand.begin(), operand.end(), "fp64"), 0);
  EXPECT_EQ(std::count(operand.begin(), operand.end(), "tf32"), 0);
  EXPECT_EQ(num_type_names().size() + 2, all_num_type_names().size());
}

}  // namespace
}  // namespace cstsim
