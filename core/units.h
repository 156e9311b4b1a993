#pragma once
// Physical quantities as types. Quantities of different units never add:
// PE·s + byte·s does not compile (tests/compile_fail/ checks it), which is the
// seed's rule that V_CST is a vector, not a sum.
#include <nlohmann/json.hpp>

namespace cstsim::units {

template <class Unit>
struct Quantity {
  double value = 0;

  static const char* unit() { return Unit::symbol; }
  Quantity& operator+=(Quantity o) {
    value += o.value;
    return *this;
  }
  friend Quantity operator+(Quantity a, Quantity b) { return {a.value + b.value}; }
  friend Quantity operator-(Quantity a, Quantity b) { return {a.value - b.value}; }
  friend Quantity operator*(Quantity a, double k) { return {a.value * k}; }
  friend Quantity operator*(double k, Quantity a) { return {a.value * k}; }
  friend double operator/(Quantity a, Quantity b) { return a.value / b.value; }  // a pure ratio
  friend bool operator<(Quantity a, Quantity b) { return a.value < b.value; }
};

#define CSTSIM_UNIT(Name, Symbol)                  \
  struct Name##Unit {                              \
    static constexpr const char* symbol = Symbol;  \
  };                                               \
  using Name = Quantity<Name##Unit>

CSTSIM_UNIT(Seconds, "s");
CSTSIM_UNIT(PESeconds, "PE·s");
CSTSIM_UNIT(DeviceSeconds, "device·s");
CSTSIM_UNIT(LaneSeconds, "lane·s");  // vector-unit lanes busy
CSTSIM_UNIT(ByteSeconds, "byte·s");
CSTSIM_UNIT(LinkSeconds, "link·s");
CSTSIM_UNIT(Bytes, "byte");
CSTSIM_UNIT(BytesPerSecond, "B/s");
CSTSIM_UNIT(Ops, "op");
CSTSIM_UNIT(OpsPerSecond, "op/s");
CSTSIM_UNIT(OpsPerByte, "op/B");
CSTSIM_UNIT(Macs, "MAC");
CSTSIM_UNIT(Joules, "J");
CSTSIM_UNIT(Watts, "W");
CSTSIM_UNIT(Devices, "device");
CSTSIM_UNIT(PEs, "PE");
CSTSIM_UNIT(Links, "link");
CSTSIM_UNIT(Ratio, "1");
#undef CSTSIM_UNIT

// The only ways to form rates and products the reports need.
inline BytesPerSecond operator/(Bytes b, Seconds t) { return {b.value / t.value}; }
inline OpsPerSecond operator/(Ops o, Seconds t) { return {o.value / t.value}; }
inline OpsPerByte operator/(Ops o, Bytes b) { return {o.value / b.value}; }
inline Seconds operator/(Ops o, OpsPerSecond p) { return {o.value / p.value}; }
inline Seconds operator/(Bytes b, BytesPerSecond p) { return {b.value / p.value}; }
inline Joules operator*(Watts p, Seconds t) { return {p.value * t.value}; }

// {"value": x, "unit": "..."}: how every physical quantity appears in report.json.
template <class Unit>
nlohmann::ordered_json to_json(Quantity<Unit> q) {
  return nlohmann::ordered_json{{"value", q.value}, {"unit", Quantity<Unit>::unit()}};
}

}  // namespace cstsim::units
