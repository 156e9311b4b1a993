#pragma once
// The R(t) trace on disk; the layout is documented in traces/FORMAT.md.
#include <cstdint>
#include <string>

namespace cstsim::trace {

inline constexpr char kMagic[8] = {'C', 'S', 'T', 'S', 'I', 'M', 'R', 'T'};
inline constexpr uint32_t kVersion = 1;
inline constexpr uint32_t kHeaderBytes = 64;
inline constexpr uint32_t kRecordBytes = 24;

// Resource classes of the occupancy field R(t) = (r_C, r_M, r_N, r_S).
enum class ResourceClass : char { Compute = 'C', Memory = 'M', Network = 'N', Storage = 'S' };

struct Resource {
  uint32_t id = 0;
  std::string name;       // dotted, unique: "array.active_pes"
  ResourceClass cls = ResourceClass::Compute;
  std::string unit;       // "PE", "device", "byte", "link"
  int64_t capacity = 0;   // occupancy never exceeds it
  std::string owner;      // SystemC module that reports it
  std::string level;      // memory level for class M ("reg", "sram", "hbm", "host"), else ""
  // Class N: the edge of the machine it is, "src>dst", and how its bytes are known:
  //   "link_cycle:<n>"   n bytes per busy link-cycle (a decimal: 0.5 for a 4-bit word);
  //                      ";<layer>=<n>" after it: the rate within that layer;
  //   "actions:<p>+<p>"  the action counters whose names start with these prefixes;
  //   "share:<p>+<p>"    those counters, split among every resource declaring the same
  //                      share by busy time (each busy unit moves the same bytes).
  // Empty for a link the model does not attribute, and for other classes.
  std::string edge = "";
  std::string carries = "";
};

#pragma pack(push, 1)
struct FileHeader {
  char magic[8];
  uint32_t version;
  uint32_t header_bytes;
  double clock_hz;
  double period_s;
  uint64_t end_cycle;      // the trace covers cycles [0, end_cycle)
  uint64_t record_count;
  uint32_t resource_count;
  uint32_t record_bytes;
  uint64_t action_window;  // cycles per window of actions.csv
};
struct Record {
  uint64_t cycle;     // the value holds from this cycle on
  uint32_t resource;  // id in resources.csv
  uint32_t reserved;  // 0
  int64_t value;      // new occupancy, in the resource's unit
};
#pragma pack(pop)
static_assert(sizeof(FileHeader) == kHeaderBytes);
static_assert(sizeof(Record) == kRecordBytes);

char class_letter(ResourceClass c);
ResourceClass class_from_letter(char c);

}  // namespace cstsim::trace
