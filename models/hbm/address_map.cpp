#include "models/hbm/address_map.h"

#include <fmt/format.h>

#include <array>
#include <stdexcept>

namespace cstsim::hbm {
namespace {

int log2_exact(int64_t v) {
  int b = 0;
  while ((int64_t(1) << b) < v) ++b;
  return (int64_t(1) << b) == v ? b : -1;
}

constexpr const char* kTokens[] = {"ro", "ba", "bg", "ch", "pc", "co"};
constexpr const char* kNames[] = {"row", "bank", "bg", "ch", "pc", "col"};

std::vector<std::string> split_layout(const std::string& layout) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : layout) {
    if (c == '-' || c == ',' || c == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace

AddressMap::AddressMap(const Organization& org, const std::string& layout) {
  const int64_t counts[kNumFields] = {org.rows,     org.banks_per_group, org.bank_groups,
                                      org.channels, org.pseudo_channels, org.columns};
  int widths[kNumFields];
  for (int f = 0; f < kNumFields; ++f) {
    widths[f] = log2_exact(counts[f]);
    if (widths[f] < 0)
      throw std::invalid_argument(fmt::format("{} count {} is not a power of two", kNames[f], counts[f]));
  }
  offset_bits_ = log2_exact(org.burst_bytes);
  if (offset_bits_ < 0)
    throw std::invalid_argument(fmt::format("burst_bytes {} is not a power of two", org.burst_bytes));

  struct Token {
    Field field;
    int width;  // -1: the whole field
  };
  std::vector<Token> tokens;
  for (const std::string& t : split_layout(layout)) {
    const std::string name = t.substr(0, t.find(':'));
    int f = 0;
    while (f < kNumFields && name != kTokens[f]) ++f;
    if (f == kNumFields)
      throw std::invalid_argument(fmt::format("unknown field '{}' (fields: ro, ba, bg, ch, pc, co)", t));
    int width = -1;
    if (t.find(':') != std::string::npos) {
      const std::string w = t.substr(t.find(':') + 1);
      if (w.empty() || w.size() > 2 || w.find_first_not_of("0123456789") != std::string::npos || std::stoi(w) == 0)
        throw std::invalid_argument(fmt::format("'{}': the width after ':' must be a positive number of bits", t));
      width = std::stoi(w);
    }
    tokens.push_back({Field(f), width});
  }
  if (tokens.empty()) throw std::invalid_argument("empty layout (e.g. ro-ba-co-bg-ch-pc)");

  // Assign bits from the least significant token up; each field fills from its low bits.
  int used[kNumFields] = {};
  bool whole_seen[kNumFields] = {};
  int addr_bit = offset_bits_;
  for (auto it = tokens.rbegin(); it != tokens.rend(); ++it) {
    const int f = it->field;
    int w = it->width;
    if (w < 0) {
      if (whole_seen[f] || used[f] > 0)
        throw std::invalid_argument(
            fmt::format("field '{}' appears more than once; split it with widths "
                        "(e.g. co:3 ... co:2)",
                        kTokens[f]));
      whole_seen[f] = true;
      w = widths[f];
    }
    pieces_.insert(pieces_.begin(), Piece{Field(f), w, addr_bit, used[f]});
    used[f] += w;
    addr_bit += w;
  }
  for (int f = 0; f < kNumFields; ++f) {
    if (used[f] == widths[f]) continue;
    if (used[f] == 0)
      throw std::invalid_argument(
          fmt::format("field '{}' ({} bits for {} {}s) is missing", kTokens[f], widths[f], counts[f], kNames[f]));
    throw std::invalid_argument(fmt::format("field '{}' gets {} bits but needs {} ({} {}s)", kTokens[f], used[f],
                                            widths[f], counts[f], kNames[f]));
  }
  if (addr_bit > 62) throw std::invalid_argument(fmt::format("address needs {} bits, more than 62", addr_bit));
  capacity_ = uint64_t(1) << addr_bit;
  // Zero-width pieces (count 1 fields) carry nothing.
  std::vector<Piece> kept;
  for (const Piece& p : pieces_)
    if (p.width > 0) kept.push_back(p);
  pieces_ = kept;

  // decode() by table: the fields side by side in one word (at most 62 bits in all) are a fixed
  // permutation of the address bits, so the word is the OR of one entry per address byte.
  for (int f = 0, lsb = 0; f < kNumFields; lsb += widths[f], ++f) {
    slot_lsb_[f] = lsb;
    slot_mask_[f] = (uint64_t(1) << widths[f]) - 1;
  }
  for (int lsb = offset_bits_; lsb < addr_bit; lsb += 8) {
    std::array<uint64_t, 256>& table = byte_tables_.emplace_back();
    for (uint64_t v = 0; v < 256; ++v) {
      const uint64_t addr = (v << lsb) & (capacity_ - 1);
      uint64_t packed = 0;
      for (const Piece& p : pieces_)
        packed |= ((addr >> p.addr_lsb) & ((uint64_t(1) << p.width) - 1)) << (slot_lsb_[p.field] + p.field_lsb);
      table[size_t(v)] = packed;
    }
  }
}

Address AddressMap::decode(uint64_t addr) const {
  if (addr >= capacity_)
    throw std::out_of_range(
        fmt::format("HBM address {:#x} is past the end of the stack ({:#x} bytes)", addr, capacity_));
  uint64_t packed = 0, rest = addr >> offset_bits_;
  for (const std::array<uint64_t, 256>& table : byte_tables_) {
    packed |= table[size_t(rest & 255)];
    rest >>= 8;
  }
  auto field = [&](Field f) { return int64_t((packed >> slot_lsb_[f]) & slot_mask_[f]); };
  Address a;
  a.row = field(kRow);
  a.bank = int(field(kBank));
  a.bank_group = int(field(kBankGroup));
  a.channel = int(field(kChannel));
  a.pc = int(field(kPc));
  a.column = field(kColumn);
  return a;
}

uint64_t AddressMap::encode(const Address& a) const {
  const int64_t v[kNumFields] = {a.row, a.bank, a.bank_group, a.channel, a.pc, a.column};
  uint64_t addr = 0;
  for (const Piece& p : pieces_) {
    const uint64_t bits = (uint64_t(v[p.field]) >> p.field_lsb) & ((uint64_t(1) << p.width) - 1);
    addr |= bits << p.addr_lsb;
  }
  return addr;
}

std::string AddressMap::describe() const {
  std::string out;
  for (const Piece& p : pieces_) {
    out += out.empty() ? "" : " ";
    if (p.width == 1)
      out += fmt::format("{}[{}]", kNames[p.field], p.addr_lsb);
    else
      out += fmt::format("{}[{}:{}]", kNames[p.field], p.addr_lsb + p.width - 1, p.addr_lsb);
  }
  if (offset_bits_ > 0) out += fmt::format(" offset[{}:0]", offset_bits_ - 1);
  return out;
}

int AddressMap::lowest_bit(const std::string& field) const {
  int f = 0;
  while (f < kNumFields && field != kTokens[f]) ++f;
  if (f == kNumFields) throw std::invalid_argument("unknown field '" + field + "'");
  int best = -1;
  for (const Piece& p : pieces_)
    if (p.field == f && p.field_lsb == 0) best = p.addr_lsb;
  return best;  // -1 for a field with no bits
}

}  // namespace cstsim::hbm
