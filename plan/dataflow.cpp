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

}  // namespace cstsim
