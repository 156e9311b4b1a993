#pragma once
// Whether this translation unit is built with AddressSanitizer (clang's __has_feature, g++'s
// __SANITIZE_ADDRESS__), and the few sanitizer calls cstsim makes, empty in a normal build.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CSTSIM_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(CSTSIM_ASAN)
#define CSTSIM_ASAN 1
#endif

#ifdef CSTSIM_ASAN
#include <cstdint>
extern "C" void __sanitizer_set_report_fd(void* fd);
#endif

namespace cstsim::sanitizer {

// Sends the sanitizer's reports to `fd` from now on (a child whose crash is expected and contained).
inline void reports_to(int fd) {
#ifdef CSTSIM_ASAN
  __sanitizer_set_report_fd(reinterpret_cast<void*>(static_cast<intptr_t>(fd)));
#else
  (void)fd;
#endif
}

}  // namespace cstsim::sanitizer
