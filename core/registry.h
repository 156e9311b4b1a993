#pragma once
// Registry<Interface>: implementations of one concept registered by name, as
// Ramulator 2 and DRAMSys do for their schedulers and standards. An implementation
// file registers itself at start-up:
//
//   CSTSIM_REGISTER(IScheduler, FrFcfs, "frfcfs")
//
// which also defines `int cstsim_anchor_FrFcfs()`. Because the models are a static
// library, the linker drops an object file nothing refers to, registration and all;
// the concept's lookup function calls each anchor once (see models/hbm/scheduler/
// registry.cpp), which keeps every implementation linked in.
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace cstsim {

template <typename Interface>
class Registry {
 public:
  using Factory = std::function<std::unique_ptr<Interface>()>;

  static Registry& instance() {
    static Registry r;
    return r;
  }
  bool add(const std::string& name, Factory factory) { return factories_.emplace(name, std::move(factory)).second; }
  bool contains(const std::string& name) const { return factories_.count(name) > 0; }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, factory] : factories_) out.push_back(name);
    return out;
  }
  // One instance per name, made on first use and kept: for stateless implementations
  // asked for often (dataflows, memory backends). Throws as make() does.
  const Interface& shared(const std::string& name, const char* what) {
    auto it = shared_.find(name);
    if (it == shared_.end()) it = shared_.emplace(name, make(name, what)).first;
    return *it->second;
  }
  // Throws std::invalid_argument "unknown <what> 'x' (known: a, b)".
  std::unique_ptr<Interface> make(const std::string& name, const char* what) const {
    auto it = factories_.find(name);
    if (it == factories_.end())
      throw std::invalid_argument(fmt::format("unknown {} '{}' (known: {})", what, name, fmt::join(names(), ", ")));
    return it->second();
  }

 private:
  std::map<std::string, Factory> factories_;
  std::map<std::string, std::unique_ptr<Interface>> shared_;
};

}  // namespace cstsim

#define CSTSIM_REGISTER(Interface, Class, Name)                                                               \
  namespace {                                                                                                 \
  const bool cstsim_registered_##Class =                                                                      \
      ::cstsim::Registry<Interface>::instance().add(Name, [] { return std::make_unique<Class>(); });          \
  }                                                                                                           \
  int cstsim_anchor_##Class() { return cstsim_registered_##Class ? 1 : 0; }
