// Memory YAML: presets, units and the one rounding rule, overrides, file:line:key errors,
// and the address map.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "models/hbm/address_map.h"
#include "models/hbm/hbm_spec.h"
#include "core/input_error.h"
#include "tests/hbm_util.h"

using namespace cstsim::hbm;
using cstsim::InputError;

namespace {


// Writes `text` to a file unique to the running test.
std::string write_yaml(const std::string& text) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const auto dir = std::filesystem::temp_directory_path() / "cstsim_hbm_config";
  std::filesystem::create_directories(dir);
  const auto path = dir / (std::string(info->name()) + ".yaml");
  std::ofstream(path) << text;
  return path.string();
}

std::string error_of(const std::string& path, const HbmOverrides& o = {}) {
  try {
    load_hbm_spec(path, o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// The HBM2 preset written out in full, minus the lines containing `drop`.
std::string hbm2_text_without(const std::string& drop) {
  std::ifstream in(kHbm2);
  std::string line, out;
  while (std::getline(in, line))
    if (drop.empty() || line.find(drop) == std::string::npos) out += line + "\n";
  return out;
}

int line_of(const std::string& text, const std::string& needle) {
  int n = 1;
  for (size_t i = 0; i < text.find(needle); ++i) n += text[i] == '\n';
  return n;
}

}  // namespace

TEST(HbmConfig, hbm2_preset_loads_with_its_organisation_and_cycles) {
  const HbmSpec s = load_hbm_spec(kHbm2);
  EXPECT_EQ(s.name, "hbm2-2000");
  EXPECT_EQ(s.standard, "HBM2");
  EXPECT_EQ(s.org.pcs(), 16);
  EXPECT_EQ(s.org.row_bytes(), 1024);
  EXPECT_EQ(s.org.capacity_bytes(), uint64_t(4) << 30);
  EXPECT_DOUBLE_EQ(s.tck_ns, 1.0);
  EXPECT_EQ(s.t("tRCD_RD"), 12);
  EXPECT_EQ(s.t("tCL"), 18);
  EXPECT_EQ(s.t("tRFC"), 220);
  EXPECT_EQ(s.t("tRFCpb"), 96);
  EXPECT_EQ(s.t("tRREFD"), 8);
  EXPECT_EQ(s.t("tREFI"), 3900);
  EXPECT_EQ(s.refresh, "all_bank");
  EXPECT_DOUBLE_EQ(s.peak_gbps(), 256.0);  // 2 Gb/s x 1024 / 8
}

TEST(HbmConfig, hbm3_preset_loads_with_its_organisation_and_cycles) {
  const HbmSpec s = load_hbm_spec(kHbm3);
  EXPECT_EQ(s.standard, "HBM3");
  EXPECT_EQ(s.org.pcs(), 32);
  EXPECT_EQ(s.org.capacity_bytes(), uint64_t(16) << 30);
  EXPECT_DOUBLE_EQ(s.tck_ns, 0.625);
  EXPECT_EQ(s.t("tRCD_RD"), 31);
  EXPECT_EQ(s.t("tRFC"), 560);    // 350 ns
  EXPECT_EQ(s.t("tREFI"), 6240);  // 3.9 us
  EXPECT_EQ(s.t("tRFCpb"), 320);  // 200 ns
  EXPECT_EQ(s.t("tRREFD"), 13);   // 8 ns
  EXPECT_EQ(s.t("tPPD"), 2);
  EXPECT_EQ(s.refresh, "per_bank");
  EXPECT_NEAR(s.peak_gbps(), 819.2, 1e-9);  // 6.4 Gb/s x 1024 / 8
}

TEST(HbmConfig, ns_round_to_cycles_by_the_jedec_rule) {
  EXPECT_EQ(ns_to_cycles(14.0, 1.0), 14);
  EXPECT_EQ(ns_to_cycles(350.0, 0.625), 560);
  EXPECT_EQ(ns_to_cycles(14.06, 0.625), 23);  // 22.496 cycles -> 23
  EXPECT_EQ(ns_to_cycles(12.51, 1.25), 10);   // 10.008 cycles: within the 2.6 % guard band -> 10
  EXPECT_EQ(ns_to_cycles(12.55, 1.25), 11);   // 10.04 cycles -> 11
  EXPECT_EQ(ns_to_cycles(0.0, 1.0), 0);
}

TEST(HbmConfig, a_preset_plus_single_field_overrides) {
  const std::string path = write_yaml("preset: hbm2-2000\nname: mine\ntiming:\n  tRFC: 350ns\n  tCL: 20ck\n");
  const HbmSpec s = load_hbm_spec(path, {{"timing.tRP", "15ns"}, {"controller.queue_depth", "8"}});
  EXPECT_EQ(s.name, "mine");
  EXPECT_EQ(s.t("tRFC"), 350);
  EXPECT_EQ(s.t("tCL"), 20);
  EXPECT_EQ(s.t("tRP"), 15);
  EXPECT_EQ(s.t("tRCD_RD"), 12);  // from the preset
  EXPECT_EQ(s.queue_depth, 8);
}

TEST(HbmConfig, equal_specs_have_equal_canonical_text) {
  const std::string path = write_yaml("preset: hbm2-2000\ntiming:\n  tRCD_RD: 12ck\n  tREFI: 3900ns\n");
  EXPECT_EQ(canonical_text(load_hbm_spec(path)), canonical_text(load_hbm_spec(kHbm2)));
  EXPECT_NE(canonical_text(load_hbm_spec(kHbm2, {{"timing.tRP", "15ns"}})), canonical_text(load_hbm_spec(kHbm2)));
}

TEST(HbmConfig, a_missing_timing_names_file_line_and_key) {
  const std::string text = hbm2_text_without("tWTR_L");
  const std::string path = write_yaml(text);
  EXPECT_EQ(error_of(path),
            path + ":" + std::to_string(line_of(text, "\ntiming:") + 1) + ": timing.tWTR_L: required key is missing");
}

TEST(HbmConfig, a_missing_organisation_field_names_file_line_and_key) {
  const std::string text = hbm2_text_without("banks_per_group");
  const std::string path = write_yaml(text);
  EXPECT_EQ(error_of(path), path + ":" + std::to_string(line_of(text, "\norganization:") + 1) +
                                ": organization.banks_per_group: required key is missing");
}

TEST(HbmConfig, bad_values_name_file_line_and_key) {
  struct Case {
    std::string yaml, expect;
  };
  const std::vector<Case> cases = {
      {"preset: hbm2-2000\ntiming:\n  tRP: 14\n", ":3: timing.tRP: expected a number with a unit (ns, us, ps, or ck"},
      {"preset: hbm2-2000\ntiming:\n  tRP: 14 furlongs\n", ":3: timing.tRP: unit 'furlongs' is not one of"},
      {"preset: hbm2-2000\ntiming:\n  tRP: -3ns\n", ":3: timing.tRP: must not be negative"},
      {"preset: hbm2-2000\ntiming:\n  tRP: 2.5ck\n", ":3: timing.tRP: a count of clock cycles must be a whole number"},
      {"preset: hbm2-2000\ntiming:\n  tXYZ: 3ns\n", ":3: timing.tXYZ: unknown timing for HBM2 (known: tBL, tCL"},
      {"preset: hbm2-2000\ntiming:\n  tPPD: 2ck\n", ":3: timing.tPPD: unknown timing for HBM2"},
      {"preset: hbm2-2000\norganization:\n  rows: 1000\n", ":3: organization.rows: must be a power of two"},
      {"preset: hbm2-2000\norganization:\n  bank_grups: 4\n",
       ":3: organization.bank_grups: unknown key (expected one of:"},
      {"preset: hbm2-2000\nstandard: DDR9\n", ":2: standard: unknown standard 'DDR9' (known: HBM2, HBM3)"},
      {"preset: hbm2-2000\ncontroller:\n  scheduler: lottery\n",
       ":3: controller.scheduler: unknown scheduler 'lottery' (known: fcfs, frfcfs)"},
      {"preset: hbm2-2000\ncontroller:\n  address_mapping: ro-ba-bg-ch-pc\n",
       ":3: controller.address_mapping: field 'co' (5 bits for 32 cols) is missing"},
      {"preset: hbm2-2000\ncontroller:\n  refresh: sometimes\n",
       ":3: controller.refresh: unknown refresh policy 'sometimes' (known: all_bank, none, per_bank)"},
      {"preset: hbm2-2000\nclock:\n  tCK: 1ck\n", ":3: clock.tCK: unit 'ck' is not one of s, ms, us"},
      {"preset: hbm2-2000\nclock:\n  tCK: 5ps\n", ":3: clock.tCK: 0.005 ns is outside 10 ps to 1 us"},
      {"preset: hbm2-2000\nclock:\n  tCK: 2us\n", ":3: clock.tCK: 2000 ns is outside 10 ps to 1 us"},
      {"preset: hbm2-2000\nclock:\n  tCK: 0.6255ns\n", ":3: clock.tCK: 0.6255 ns is not a whole number of picoseconds"},
      {"preset: hbm2-2000\ntiming:\n  tREFI: 100ns\n", ":3: timing.tREFI: must be longer than tRFC (220 cycles)"},
      {"preset: hbm3-6400\ntiming:\n  tREFI: 190ns\n", ":3: timing.tREFI: must be longer than tRFCpb (320 cycles)"},
      {"preset: hbm3-6400\ntiming:\n  tREFI: 8ck\n  tRFCpb: 1ck\n",
       ":3: timing.tREFI: per_bank refresh needs at least one cycle per bank (16 banks per pseudo-channel)"},
      {"preset: hbm9-1\n", ":1: preset: no preset 'hbm9-1' (shipped: "},
      {"preset: hbm2-2000\ntiming: 3\n", ":2: timing: expected a map, got a single value"},
      {"preset: hbm2-2000\nname: a\nname: b\n", ":3: name: duplicate key"},
  };
  for (const Case& c : cases) {
    const std::string path = write_yaml(c.yaml);
    const std::string got = error_of(path);
    EXPECT_EQ(got.rfind(path + c.expect, 0), 0u) << "yaml:\n"
                                                 << c.yaml << "got:      " << got << "\nexpected: " << path + c.expect;
  }
}

TEST(HbmConfig, refresh_mode_is_a_controller_choice) {
  EXPECT_EQ(load_hbm_spec(kHbm2, {{"controller.refresh", "per_bank"}}).refresh, "per_bank");
  EXPECT_EQ(load_hbm_spec(kHbm3, {{"controller.refresh", "all_bank"}}).refresh, "all_bank");
  EXPECT_EQ(load_hbm_spec(kHbm3, {{"controller.refresh", "none"}}).refresh, "none");
  const std::string text = canonical_text(load_hbm_spec(kHbm3));
  EXPECT_NE(text.find("controller.refresh=per_bank\n"), std::string::npos) << text;
  EXPECT_NE(text.find("timing.tRFCpb=320ck\n"), std::string::npos) << text;
  // tRFCpb and tRREFD are timings of both standards (HBM2 REFSB, HBM3 REFpb): required.
  const std::string missing = hbm2_text_without("tRREFD");
  EXPECT_NE(error_of(write_yaml(missing)).find("timing.tRREFD: required key is missing"), std::string::npos);
}

TEST(HbmConfig, overrides_are_checked_like_the_file) {
  EXPECT_EQ(error_of(kHbm2, {{"timing.tRP", "fast"}}).rfind("--set: timing.tRP: expected a number with a unit", 0), 0u);
  EXPECT_EQ(error_of(kHbm2, {{"timing.tRPP", "14ns"}}).rfind("--set: timing.tRPP: unknown timing for HBM2", 0), 0u);
  EXPECT_EQ(error_of(kHbm2, {{"organisation.rows", "8"}}).rfind("--set: organisation.rows: unknown key", 0), 0u);
}

TEST(HbmConfig, address_mapping_may_be_a_yaml_list) {
  const std::string path =
      write_yaml("preset: hbm2-2000\ncontroller:\n  address_mapping: [ro, ba, \"co:3\", bg, ch, pc, \"co:2\"]\n");
  EXPECT_EQ(load_hbm_spec(path).address_mapping, "ro-ba-co:3-bg-ch-pc-co:2");
}

// ---- Address map ----

TEST(HbmAddressMap, hbm2_default_layout) {
  const HbmSpec s = load_hbm_spec(kHbm2);
  const AddressMap m(s.org, s.address_mapping);
  EXPECT_EQ(m.describe(), "row[31:18] bank[17:16] col[15:11] bg[10:9] ch[8:6] pc[5] offset[4:0]");
  EXPECT_EQ(m.capacity(), uint64_t(4) << 30);
  const Address a = m.decode(0x20 + 0x40 * 3 + 0x200 * 2 + 0x800 * 7 + 0x10000 * 1 + 0x40000 * 99);
  EXPECT_EQ(a.pc, 1);
  EXPECT_EQ(a.channel, 3);
  EXPECT_EQ(a.bank_group, 2);
  EXPECT_EQ(a.column, 7);
  EXPECT_EQ(a.bank, 1);
  EXPECT_EQ(a.row, 99);
  EXPECT_EQ(m.lowest_bit("ro"), 18);
  EXPECT_THROW(m.decode(m.capacity()), std::out_of_range);
}

TEST(HbmAddressMap, encode_inverts_decode) {
  const HbmSpec s = load_hbm_spec(kHbm3);
  for (const char* layout :
       {"ro-ba-co-bg-ch-pc", "ro-ba-bg-ch-pc-co", "ro-co:3-ba-bg-ch-pc-co:2", "ch-pc-ro-bg-ba-co"}) {
    const AddressMap m(s.org, layout);
    std::mt19937_64 rng(5);
    for (int i = 0; i < 1000; ++i) {
      const uint64_t addr = (rng() % m.capacity()) & ~uint64_t(31);
      EXPECT_EQ(m.encode(m.decode(addr)), addr) << layout;
    }
  }
}

TEST(HbmAddressMap, a_split_field_puts_its_low_bits_on_the_right) {
  const HbmSpec s = load_hbm_spec(kHbm2);
  const AddressMap m(s.org, "ro-ba-co:3-bg-ch-pc-co:2");
  EXPECT_EQ(m.describe(), "row[31:18] bank[17:16] col[15:13] bg[12:11] ch[10:8] pc[7] col[6:5] offset[4:0]");
  EXPECT_EQ(m.decode(0x20).column, 1);  // low column bits first
  EXPECT_EQ(m.decode(0x80).pc, 1);
  EXPECT_EQ(m.decode(0x2000).column, 4);  // high piece
}

TEST(HbmAddressMap, bad_layouts_say_what_is_wrong) {
  const HbmSpec s = load_hbm_spec(kHbm2);
  auto err = [&](const std::string& layout) {
    try {
      AddressMap(s.org, layout);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(err("ro-ba-bg-ch-pc"), "field 'co' (5 bits for 32 cols) is missing");
  EXPECT_EQ(err("ro-ba-bg-ch-pc-co-co"),
            "field 'co' appears more than once; split it with widths (e.g. co:3 ... co:2)");
  EXPECT_EQ(err("ro-ba-bg-ch-pc-co:3"), "field 'co' gets 3 bits but needs 5 (32 cols)");
  EXPECT_EQ(err("ro-ba-bg-ch-pc-xx"), "unknown field 'xx' (fields: ro, ba, bg, ch, pc, co)");
  EXPECT_EQ(err(""), "empty layout (e.g. ro-ba-co-bg-ch-pc)");
}
