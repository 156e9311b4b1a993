#include "plan/dataflow.h"

namespace cstsim {

const char* to_string(Dataflow d) {
  switch (d) {
    case Dataflow::WS: return "ws";
    case Dataflow::OS: return "os";
    case Dataflow::IS: return "is";
    case Dataflow::RS: return "rs";
  }
  return "?";
}

namespace {
constexpr Dataflow kAll[] = {Dataflow::WS, Dataflow::OS, Dataflow::IS, Dataflow::RS};
}  // namespace

const std::vector<std::string>& dataflow_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (Dataflow d : kAll) out.push_back(to_string(d));
    return out;
  }();
  return names;
}

std::optional<Dataflow> dataflow_named(const std::string& name) {
  for (Dataflow d : kAll)
    if (name == to_string(d)) return d;
  return std::nullopt;
}

const char* to_string(FoldPipeline p) {
  switch (p) {
    case FoldPipeline::ScaleSim: return "scalesim";
    case FoldPipeline::Overlapped: return "overlapped";
  }
  return "?";
}

std::optional<FoldPipeline> fold_pipeline_named(const std::string& name) {
  for (FoldPipeline p : {FoldPipeline::ScaleSim, FoldPipeline::Overlapped})
    if (name == to_string(p)) return p;
  return std::nullopt;
}

const DataflowRoles& roles(Dataflow d) {
  static const DataflowRoles ws{Dim::K, Dim::N, Dim::M, true, false, true};
  static const DataflowRoles os{Dim::M, Dim::N, Dim::K, false, true, true};
  static const DataflowRoles is{Dim::K, Dim::M, Dim::N, true, false, false};
  switch (d) {
    case Dataflow::WS: return ws;
    case Dataflow::OS: return os;
    case Dataflow::IS: return is;
    case Dataflow::RS: return ws;  // filters held, ifmap streamed, psums added outside: WS's reading
  }
  return ws;
}

}  // namespace cstsim
