#include "plan/dma_program.h"

namespace cstsim {

const char* to_string(Operand o) {
  switch (o) {
    case Operand::Stationary: return "stationary";
    case Operand::Stream: return "stream";
    case Operand::Output: return "output";
  }
  return "?";
}

int64_t LayerDmaPlan::read_bytes() const {
  int64_t b = 0;
  for (const DmaTransfer& t : reads) b += t.bytes;
  return b;
}

int64_t LayerDmaPlan::write_bytes() const {
  int64_t b = 0;
  for (const DmaTransfer& t : writes) b += t.bytes;
  return b;
}

nlohmann::ordered_json to_json(const LayerDmaPlan& d) {
  auto bytes_of = [](const std::vector<DmaTransfer>& ts, Operand o) {
    int64_t b = 0;
    for (const DmaTransfer& t : ts) b += t.operand == o ? t.bytes : 0;
    return b;
  };
  return {{"stationary", {{"partition", d.stationary_partition}, {"slot_bytes", d.stationary_slot},
                          {"fifo_tiles", d.fifo_tiles}, {"hbm_read_bytes", bytes_of(d.reads, Operand::Stationary)}}},
          {"stream", {{"partition", d.stream_partition}, {"resident", d.stream_resident}, {"slot_bytes", d.stream_slot},
                      {"hbm_read_bytes", bytes_of(d.reads, Operand::Stream)}}},
          {"output", {{"partition", "ofmap"}, {"resident", d.output_resident}, {"slot_bytes", d.output_slot},
                      {"hbm_write_bytes", d.write_bytes()}}},
          {"passes", d.passes},
          {"reads", d.reads.size()},
          {"writes", d.writes.size()},
          {"hbm_footprint_bytes", d.hbm_footprint}};
}

}  // namespace cstsim
