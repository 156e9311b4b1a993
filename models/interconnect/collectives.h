#pragma once
// Collectives as messages on the fabric (fabric.h), the way ring-based libraries run them
// (docs/design/multi-chip.md §2): the data is cut into one chunk per chip, and every step each chip
// forwards a chunk to the next chip of the ring, once the chunk it forwards has arrived (and, in a
// reduce-scatter, been added to its own). A chunk may be cut further into slices of at most
// `slice_bytes`, which flow through the steps independently (pipelining). At zero contention a
// ring all-reduce of S bytes on N chips then sends 2(N-1)/N S bytes per chip and takes
// 2(N-1) (alpha + S/(N B)) with one slice per chunk.
#include <cstdint>
#include <vector>

#include "models/interconnect/fabric.h"

namespace cstsim::ic {

struct CollectiveOptions {
  int64_t start_ps = 0;         // when the data is ready on every chip
  int64_t slice_bytes = 0;      // 0: a chunk moves as one message
  double reduce_ps_per_byte = 0;  // the receiving chip's reduction of what it forwards (0: free)
  int id = -1;                  // Message::collective
  // Per chip id: a message the chip must have received before it sends anything (-1 or absent:
  // none), to run collectives one after another (a 2-D torus's phases).
  std::vector<int> after_by_chip;
  // Per chip id: the earliest its messages may leave, when the chips are ready at different times
  // (each chip's array reaches the collective when it does); absent: start_ps.
  std::vector<int64_t> ready_by_chip;
  // Per chip id: bytes it still adds before its first message leaves (a reduce-scatter phase's last
  // chunk, whose addition no message of that phase carries), at reduce_ps_per_byte.
  std::vector<int64_t> pending_reduce_bytes_by_chip;
  double pending_reduce_ps_per_byte = 0;
};

// What a collective added: its messages (ids in the fabric) and the bytes each chip sends.
struct Collective {
  std::vector<int> messages;
  std::vector<int64_t> sent_by_chip;  // indexed by chip id
  int64_t end_ps(const Fabric& f) const;
};

// `ring`: the chips in ring order (each sends to the next). `bytes` per chip.
Collective ring_all_reduce(Fabric& f, const std::vector<int>& ring, int64_t bytes, const CollectiveOptions& o = {});
Collective ring_reduce_scatter(Fabric& f, const std::vector<int>& ring, int64_t bytes, const CollectiveOptions& o = {});
Collective ring_all_gather(Fabric& f, const std::vector<int>& ring, int64_t bytes, const CollectiveOptions& o = {});
// Half the data around the ring each way (a ring with links both ways).
Collective bidirectional_ring_all_reduce(Fabric& f, const std::vector<int>& ring, int64_t bytes,
                                         const CollectiveOptions& o = {});
// Every all-reduce here adds (N-1)/N S per chip on its critical path: each received chunk is added
// before what depends on it leaves (the last halving's, or a torus phase's last chunk, before the
// next phase's first message).
// Recursive halving then doubling (N a power of two): in step k each chip exchanges half of what
// it holds with the chip 2^k away (halving: and adds it), then gathers back the same way:
// 2 log2(N) (alpha) + 2 (N-1)/N S / B at zero contention, on links both ways between partners.
Collective halving_doubling_all_reduce(Fabric& f, const std::vector<int>& chips, int64_t bytes,
                                       const CollectiveOptions& o = {});
// On an x by y torus (chip = row * x + column): reduce-scatter along the rows, then along the
// columns on the row's share, all-gather back along the columns and the rows.
Collective torus_all_reduce(Fabric& f, int x, int y, int64_t bytes, const CollectiveOptions& o = {});

// Every chip sends bytes / N to every other chip, all at once.
Collective all_to_all(Fabric& f, const std::vector<int>& chips, int64_t bytes, const CollectiveOptions& o = {});
Collective point_to_point(Fabric& f, int src, int dst, int64_t bytes, const CollectiveOptions& o = {});

}  // namespace cstsim::ic
