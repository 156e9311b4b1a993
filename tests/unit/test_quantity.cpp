// One unit convention (core/quantity.h): a quantity may carry any unit of its dimension, is
// converted exactly to the key's unit, and a wrong or ambiguous unit is one clear problem.
#include <gtest/gtest.h>

#include "core/quantity.h"
#include "sim/config/arch_spec.h"
#include "core/input_error.h"
#include "tests/test_util.h"

using namespace cstsim;

namespace {

double value(const char* text, const char* unit) {
  const QuantityResult q = parse_quantity(text, unit);
  EXPECT_EQ(q.problem, "") << text;
  return q.value;
}

std::string problem(const char* text, const char* unit) { return parse_quantity(text, unit).problem; }

TEST(Quantity, ConvertsToTheKeysUnitExactly) {
  EXPECT_EQ(value("12", "ns"), 12.0);  // a bare number is in the key's unit
  EXPECT_EQ(value("14ns", "ns"), 14.0);
  EXPECT_EQ(value("3.9us", "ns"), 3900.0);
  EXPECT_EQ(value("5ps", "ns"), 0.005);  // powers of ten divide exactly
  EXPECT_EQ(value("1 ms", "ns"), 1e6);
  EXPECT_EQ(value("1GHz", "Hz"), 1e9);
  EXPECT_EQ(value("700 MHz", "Hz"), 7e8);
  EXPECT_EQ(value("64KiB", "KiB"), 64.0);
  EXPECT_EQ(value("1MiB", "KiB"), 1024.0);
  EXPECT_EQ(value("2GiB", "bytes"), 2147483648.0);
  EXPECT_EQ(value("512B", "KiB"), 0.5);
  EXPECT_EQ(value("100GB/s", "GB/s"), 100.0);
  EXPECT_EQ(value("1TB/s", "GB/s"), 1000.0);
  EXPECT_EQ(value("2ck", "cycles"), 2.0);
}

TEST(Quantity, WrongOrAmbiguousUnitsAreNamed) {
  EXPECT_NE(problem("64kB", "KiB").find("'kB' is ambiguous"), std::string::npos);
  EXPECT_NE(problem("3ns", "Hz").find("unit 'ns' is not one of Hz, kHz, MHz, GHz"), std::string::npos);
  EXPECT_NE(problem("4KiB", "PE").find("takes a plain number of PE"), std::string::npos);
  EXPECT_NE(problem("fast", "ns").find("expected a number"), std::string::npos);
  EXPECT_NE(problem("2ck", "ns").find("unit 'ck' is not one of"), std::string::npos);
}

// A value written with a unit is the same configuration as the number: same canonical text, so
// the same config hash and the same sweep point.
TEST(Quantity, ArchKeysTakeUnitsAndHashTheSame) {
  testing_util::TempDir dir;
  const std::string file = dir.write("a.yaml", "array: {rows: 8, cols: 8}\ndataflow: ws\n");
  const ArchSpec plain = load_arch(file, {{"clock_hz", "7e8"}, {"sram.ifmap_kib", "1024"}});
  const ArchSpec units = load_arch(file, {{"clock_hz", "700MHz"}, {"sram.ifmap_kib", "1MiB"}});
  EXPECT_EQ(units.clock_hz, 7e8);
  EXPECT_EQ(units.ifmap_sram_kib, 1024);
  EXPECT_EQ(canonical_text(plain), canonical_text(units));
  try {
    load_arch(file, {{"sram.ifmap_kib", "1.5KiB"}});
    ADD_FAILURE() << "a fraction of a KiB accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "sram.ifmap_kib");
    EXPECT_NE(std::string(e.what()).find("whole number of KiB"), std::string::npos) << e.what();
  }
}

}  // namespace
