#include "models/array/structural/structural_pe.h"

#include <cstring>

#include "models/array/grid_arith.h"

namespace cstsim::structural {
namespace {

template <class T>
T from_bits(uint32_t b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}
template <class T>
uint32_t to_bits(T v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

template <class Arith>
uint32_t mac_as(uint32_t s, uint32_t x, uint32_t w) {
  using Reg = typename Arith::Reg;
  using Acc = typename Arith::Acc;
  return to_bits(Arith::mac(from_bits<Acc>(s), from_bits<Reg>(x), from_bits<Reg>(w)));
}
template <class Arith>
uint32_t add_as(uint32_t c, uint32_t v) {
  using Acc = typename Arith::Acc;
  return to_bits(Arith::add(from_bits<Acc>(c), from_bits<Acc>(v)));
}

}  // namespace

PeArith pe_arith(NumType operand) {
  return with_grid_arith(operand, [](auto arith) {
    using A = decltype(arith);
    if constexpr (std::is_same_v<A, IntArith>) return PeArith::Int;
    else if constexpr (std::is_same_v<A, FloatArith<true>>) return PeArith::FloatFused;
    else return PeArith::Float;
  });
}

uint32_t mac_bits(PeArith a, uint32_t s, uint32_t x, uint32_t w) {
  switch (a) {
    case PeArith::Int: return mac_as<IntArith>(s, x, w);
    case PeArith::Float: return mac_as<FloatArith<false>>(s, x, w);
    case PeArith::FloatFused: return mac_as<FloatArith<true>>(s, x, w);
  }
  return 0;
}

uint32_t add_bits(PeArith a, uint32_t c, uint32_t v) {
  switch (a) {
    case PeArith::Int: return add_as<IntArith>(c, v);
    case PeArith::Float: return add_as<FloatArith<false>>(c, v);
    case PeArith::FloatFused: return add_as<FloatArith<true>>(c, v);
  }
  return 0;
}

uint32_t to_word(PeArith a, float v) {
  if (a == PeArith::Int) return uint32_t(int32_t(v));
  return to_bits(v);
}

StationaryPe::StationaryPe(const sc_core::sc_module_name& name, int lanes, int x_lanes)
    : PeBase(name, lanes), x_in("x_in", size_t(x_lanes)), w0_in("w0_in", size_t(lanes)),
      w1_in("w1_in", size_t(lanes)), s0_in("s0_in", x_lanes > lanes ? size_t(lanes) : 0),
      s1_in("s1_in", x_lanes > lanes ? size_t(lanes) : 0), x_out("x", size_t(x_lanes)), xtag_out("xtag"),
      xbank_out("xbank"), psum_out("psum"), ptag_out("ptag"), w0_out("w0", size_t(lanes)), w1_out("w1", size_t(lanes)),
      s0_out("s0", x_lanes > lanes ? size_t(lanes) : 0), s1_out("s1", x_lanes > lanes ? size_t(lanes) : 0),
      x_lanes_(x_lanes), select_(x_lanes > lanes) {
  SC_METHOD(edge);
  sensitive << clk.pos();
  dont_initialize();
}

void StationaryPe::edge() {
  if (rst.read()) {
    for (int q = 0; q < x_lanes_; ++q) x_out[q].write(0);
    for (int q = 0; q < lanes_; ++q) w0_out[q].write(0), w1_out[q].write(0);
    for (size_t q = 0; q < s0_out.size(); ++q) s0_out[q].write(0), s1_out[q].write(0);
    xtag_out.write(-1), xbank_out.write(false), psum_out.write(0), ptag_out.write(-1);
    return;
  }
  // Every read below is of the signals before this edge: the neighbours' registers and our own.
  const bool bank = xbank_in.read();
  const sc_core::sc_vector<WordOut>& w = bank ? w1_out : w0_out;
  const sc_core::sc_vector<TagOut>& sel = bank ? s1_out : s0_out;
  uint32_t sum = psum_in.read();
  for (int q = 0; q < lanes_; ++q) {
    const int lane = select_ ? sel[q].read() : q;  // 2:4: the activation the kept weight was kept for
    sum = mac_bits(arith, sum, lane < x_lanes_ ? x_in[lane].read() : 0u, w[q].read());
  }
  for (int q = 0; q < x_lanes_; ++q) x_out[q].write(x_in[q].read());
  xtag_out.write(xtag_in.read());
  xbank_out.write(bank);
  psum_out.write(planted(sum));
  ptag_out.write(ptag_in.read());
  if (load.read()) {  // the bank being loaded takes the word of the PE above
    const bool b = load_bank.read();
    for (int q = 0; q < lanes_; ++q) (b ? w1_out : w0_out)[q].write((b ? w1_in : w0_in)[q].read());
    for (size_t q = 0; q < s0_out.size(); ++q) (b ? s1_out : s0_out)[q].write((b ? s1_in : s0_in)[q].read());
  }
}

OutputStationaryPe::OutputStationaryPe(const sc_core::sc_module_name& name, int lanes)
    : PeBase(name, lanes), a_in("a_in", size_t(lanes)), b_in("b_in", size_t(lanes)), a_out("a", size_t(lanes)),
      b_out("b", size_t(lanes)), atag_out("atag"), btag_out("btag"), alast_out("alast"), acc_out("acc"),
      res_out("res"), res_valid("res_valid") {
  SC_METHOD(edge);
  sensitive << clk.pos();
  dont_initialize();
}

void OutputStationaryPe::edge() {
  if (rst.read()) {
    for (int q = 0; q < lanes_; ++q) a_out[q].write(0), b_out[q].write(0);
    atag_out.write(-1), btag_out.write(-1), alast_out.write(false), acc_out.write(0), res_out.write(0);
    res_valid.write(false);
    return;
  }
  uint32_t sum = acc_out.read();
  for (int q = 0; q < lanes_; ++q) {
    const uint32_t a = a_in[q].read(), b = b_in[q].read();
    sum = mac_bits(arith, sum, a, b);
    a_out[q].write(a);
    b_out[q].write(b);
  }
  sum = planted(sum);
  const bool last = alast_in.read();
  atag_out.write(atag_in.read());
  btag_out.write(btag_in.read());
  alast_out.write(last);
  res_valid.write(last);
  if (last) res_out.write(sum);
  acc_out.write(last ? 0u : sum);  // the next output starts from +0 (zero bits in every type)
}

}  // namespace cstsim::structural
