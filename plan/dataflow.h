#pragma once
// The dataflow vocabulary every floor above shares: which dataflow a layer runs and
// how the array pipelines its folds. Names as the YAML spells them.
namespace cstsim {

enum class Dataflow { WS, OS, IS };
enum class FoldPipeline { ScaleSim, Overlapped };

const char* to_string(Dataflow d);
const char* to_string(FoldPipeline p);

}  // namespace cstsim
