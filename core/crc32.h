#pragma once
// CRC-32 (the ISO-HDLC polynomial of zlib, PNG and Ethernet: the values boost::crc_32_type gives),
// computed by zlib, several times faster than a byte-at-a-time table; trace files are checksummed
// as they are written and read, so it showed in every traced run.
#include <zlib.h>

#include <cstddef>
#include <cstdint>

namespace cstsim {

class Crc32 {
 public:
  void process_bytes(const void* data, size_t bytes) { value_ = crc32_z(value_, static_cast<const Bytef*>(data), bytes); }
  uint32_t checksum() const { return uint32_t(value_); }

 private:
  uLong value_ = crc32_z(0, nullptr, 0);
};

}  // namespace cstsim
