#pragma once
// AddressSanitizer and SystemC's coroutines. Debian's SystemC 2.3.4 tells the sanitizer about every
// stack switch (weak references to __sanitizer_start_switch_fiber), but when it switches back to
// the kernel's own stack (the process's main stack) it passes no bounds, so the sanitizer believes
// the current stack is empty. An exception thrown there afterwards (in an SC_METHOD, or after
// sc_start returns) then cannot unpoison the frames it unwinds ("ASan is ignoring requested
// __asan_handle_no_return", google/sanitizers#189), and later calls report false stack overflows.
// on_main_stack() gives the sanitizer the main stack's bounds again whenever code runs on it; it is
// empty in a build without AddressSanitizer.
#include "core/sanitizer.h"

#ifdef CSTSIM_ASAN
#include <pthread.h>

#include <cstddef>
#include <cstdint>

extern "C" void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, size_t size);
extern "C" void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old, size_t* size_old);
#endif

namespace cstsim::sanitizer {

#ifdef CSTSIM_ASAN
struct StackBounds {
  const char* bottom = nullptr;
  size_t size = 0;
};

// The main thread's stack, read once (the first call is on the main thread, before sc_start).
inline const StackBounds& main_stack() {
  static const StackBounds bounds = [] {
    StackBounds b;
    pthread_attr_t attr;
    void* addr = nullptr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      pthread_attr_getstack(&attr, &addr, &b.size);
      pthread_attr_destroy(&attr);
    }
    b.bottom = static_cast<const char*>(addr);
    return b;
  }();
  return bounds;
}

inline void on_main_stack() {
  const StackBounds& s = main_stack();
  const char here = 0;
  if (s.size == 0 || &here < s.bottom || &here >= s.bottom + s.size) return;  // on a coroutine's stack
  __sanitizer_start_switch_fiber(nullptr, s.bottom, s.size);  // a "switch" onto the stack we are on
  __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
}
#else
inline void on_main_stack() {}
#endif

}  // namespace cstsim::sanitizer
