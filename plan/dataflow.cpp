#include "plan/dataflow.h"

namespace cstsim {

const char* to_string(Dataflow d) {
  switch (d) {
    case Dataflow::WS: return "ws";
    case Dataflow::OS: return "os";
    case Dataflow::IS: return "is";
  }
  return "?";
}

const char* to_string(FoldPipeline p) {
  switch (p) {
    case FoldPipeline::ScaleSim: return "scalesim";
    case FoldPipeline::Overlapped: return "overlapped";
  }
  return "?";
}

const DataflowRoles& roles(Dataflow d) {
  static const DataflowRoles ws{Dim::K, Dim::N, Dim::M, true, false, true};
  static const DataflowRoles os{Dim::M, Dim::N, Dim::K, false, true, true};
  static const DataflowRoles is{Dim::K, Dim::M, Dim::N, true, false, false};
  switch (d) {
    case Dataflow::WS: return ws;
    case Dataflow::OS: return os;
    case Dataflow::IS: return is;
  }
  return ws;
}

}  // namespace cstsim
