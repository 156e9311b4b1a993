#pragma once
// An exception thrown inside a SystemC process crosses the kernel, which turns it into a
// three-line "uncaught exception" report and loses its type (an input error would leave with exit
// status 1, not 2). Every process body runs through guard_process instead: the first exception is
// kept and the simulation stopped, and the caller of sc_start rethrows it, type intact.
#include <exception>
#include <systemc>

#include "models/base/sanitizer_stack.h"

namespace cstsim {

class ProcessErrors {
 public:
  static std::exception_ptr& first() {
    static std::exception_ptr e;
    return e;
  }
  // After sc_start: the exception a process threw, if one did.
  static void rethrow_if_any() {
    sanitizer::on_main_stack();  // the kernel's last switch left AddressSanitizer without its bounds
    if (std::exception_ptr e = first()) {
      first() = nullptr;
      std::rethrow_exception(e);
    }
  }
};

template <class Body>
void guard_process(Body&& body) {
  sanitizer::on_main_stack();  // methods run on the kernel's own stack; threads on theirs
  try {
    body();
  } catch (const sc_core::sc_unwind_exception&) {  // the kernel killing or resetting the thread: its own
    throw;
  } catch (...) {
    if (!ProcessErrors::first()) ProcessErrors::first() = std::current_exception();
    sc_core::sc_stop();
  }
}

}  // namespace cstsim
