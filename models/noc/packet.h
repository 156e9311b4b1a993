#pragma once
// What the endpoints exchange (Packet, Delivery) and what moves inside the
// network (Flit). Cycles are NoC clock cycles, counted from 0.
#include <cstdint>

#include "models/noc/mesh.h"

namespace cstsim::noc {

struct Packet {
  NodeId src = 0;
  NodeId dst = 0;
  int vnet = 0;        // 0 = request, 1 = response (kRequestVnet / kResponseVnet)
  int64_t bytes = 0;   // payload; flits = max(1, ceil(bytes / flit_bytes))
  uint64_t id = 0;     // the caller's tag, handed back in the Delivery
  int64_t cycle = -1;  // cycle the packet is offered to the source's network interface
                       // (MeshModule::inject fills it with the current cycle when < 0)
};

struct Delivery {
  Packet packet;
  int64_t cycle = 0;  // cycle the tail flit left the destination router into the endpoint
  int flits = 0;
  int hops = 0;  // routers traversed (Mesh::hops)
  int64_t latency() const { return cycle - packet.cycle; }
};

// One flit in a buffer or on a wire. `packet` indexes the network's packet table.
struct Flit {
  uint32_t packet = 0;
  uint16_t seq = 0;  // 0 = head; flits - 1 = tail (a 1-flit packet is both)
  uint8_t kind = 0;  // kHead | kTail bits
  uint8_t vnet = 0;
  int8_t route = -1;  // head flits: output port at the router buffering it (set on the buffer write)
  int64_t ready = 0;  // first cycle it may leave the router it is buffered in
  int64_t born = 0;   // cycle its packet was offered to the network (age arbitration: oldest first)
  static constexpr uint8_t kHead = 1, kTail = 2;
  bool head() const { return kind & kHead; }
  bool tail() const { return kind & kTail; }
};

}  // namespace cstsim::noc
