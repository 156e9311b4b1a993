#pragma once
// Byte address <-> (channel, pseudo-channel, bank group, bank, row, column).
//
// The layout lists address fields from the most significant bit down, e.g. "ro-ba-co-bg-ch-pc":
//   ro row, ba bank (within its group), bg bank group, ch channel, pc pseudo-channel, co column.
// Below the last field sit log2(burst_bytes) offset bits (the byte within a 32 B burst).
// A field's width is log2 of its count in the organization (counts are powers of two; a field
// of count 1 has no bits and may be left out). A field may be split by giving widths:
// "ro-ba-co:3-bg-ch-pc-co:2" puts the column's low 2 bits just above the pseudo-channel bits
// and its high 3 bits above the bank groups; the rightmost piece holds the lowest bits.
// The YAML may also give the same tokens as a list: [ro, ba, "co:3", bg, ch, pc, "co:2"].
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/hbm/hbm_spec.h"

namespace cstsim::hbm {

class AddressMap {
 public:
  // Throws std::invalid_argument (unknown field, widths that do not add up, a field missing).
  AddressMap(const Organization& org, const std::string& layout);

  // addr must be below capacity() (std::out_of_range otherwise: an address past the end of
  // the stack is the caller's bug, never silently wrapped).
  Address decode(uint64_t addr) const;
  uint64_t encode(const Address& a) const;  // offset bits 0
  uint64_t capacity() const { return capacity_; }
  int offset_bits() const { return offset_bits_; }
  // "row[31:18] bank[17:16] col[15:11] bg[10:9] ch[8:6] pc[5] offset[4:0]"
  std::string describe() const;
  // Lowest address bit of a field ("ro" -> 18 above): the stride that changes only that field.
  int lowest_bit(const std::string& field) const;

 private:
  enum Field { kRow, kBank, kBankGroup, kChannel, kPc, kColumn, kNumFields };
  struct Piece {
    Field field;
    int width;      // bits
    int addr_lsb;   // lowest address bit of the piece
    int field_lsb;  // lowest bit of the field value it carries
  };
  std::vector<Piece> pieces_;  // most significant first
  // decode(): every field at its own place in one word (slot_lsb_, slot_mask_), filled by one
  // table entry per byte of the address above the burst offset.
  int slot_lsb_[kNumFields] = {};
  uint64_t slot_mask_[kNumFields] = {};
  std::vector<std::array<uint64_t, 256>> byte_tables_;
  int offset_bits_ = 0;
  uint64_t capacity_ = 0;
};

}  // namespace cstsim::hbm
