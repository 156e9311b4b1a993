#pragma once
// Credit counter of one output VC: free slots in the downstream input VC buffer.
// Credits can never go below zero nor above the buffer depth; either is a flow
// control bug, and the simulation fails loudly (always checked, also in Release).
#include <stdexcept>
#include <string>

namespace cstsim::noc {

class CreditCounter {
 public:
  explicit CreditCounter(int depth = 0) : depth_(depth), credits_(depth) {}
  int credits() const { return credits_; }
  int depth() const { return depth_; }
  bool available() const { return credits_ > 0; }
  bool full() const { return credits_ == depth_; }
  void consume() {
    if (credits_ <= 0) fail("consume with no credit left");
    --credits_;
  }
  void restore() {
    if (credits_ >= depth_) fail("credit returned beyond the buffer depth " + std::to_string(depth_));
    ++credits_;
  }

 private:
  [[noreturn]] static void fail(const std::string& what) { throw std::logic_error("noc credit invariant: " + what); }
  int depth_;
  int credits_;
};

}  // namespace cstsim::noc
