#!/usr/bin/env bash
# Gemmini's RTL (ucb-bar/gemmini pull request #69: "ResNet50: 153709356 cycles (40% utilization)",
# 4 images) against the gemmini preset, its default configuration. The preset models the array,
# its double-buffered weights and a 128-bit weight DMA, not the RoCC command stream or the
# activations' DMA: the gap is what those cost (configs/arch/gemmini.yaml). Writes results.csv.
#
#   validation/gemmini/run.sh [build-dir] [out-dir]          (about 2 s)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-build}/cstsim
OUT=${2:-out/validation/gemmini}
rm -rf "$OUT" && mkdir -p "$OUT"
# One image (SCALE-Sim's ResNet-50 topology: its convolutions and the FC layer); the four images
# of the RTL run go one after another, each reloading the weights.
"$BIN" run -q --no-trace --arch configs/arch/gemmini.yaml --workload configs/workloads/resnet50.csv \
  --out "$OUT/resnet50" 2>>"$OUT/runs.log"
python3 - "$OUT" <<'PY'
import json, sys
sys.path.insert(0, "validation")
from published import Results
out = sys.argv[1]
s = json.load(open(f"{out}/resnet50/summary.json"))
r = Results()
r.row("ResNet-50, 4 images: cycles", 153.7, "M cycles", 4 * s["total"]["cycles"] / 1e6, "prediction")
r.write(out)
PY
