#!/usr/bin/env bash
# Gemmini's RTL (ucb-bar/gemmini pull request #69: "ResNet50: 153709356 cycles (40% utilization)",
# 4 images) against the gemmini preset, its configuration of the time, every layer run as the
# command stream its library issues (controller: rocc). The preset's DMA latency is fitted on this
# run (the one number not published): the row is a calibration. The same run with no latency at
# all shows what the mechanisms alone give. Writes results.csv.
#
#   validation/gemmini/run.sh [build-dir] [out-dir]          (about 3 s)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-build}/cstsim
OUT=${2:-out/validation/gemmini}
rm -rf "$OUT" && mkdir -p "$OUT"
# The graph's residual additions and poolings are listed as not simulated (warnings to runs.log).
for latency in preset 0; do
  set_latency=()
  [ "$latency" = preset ] || set_latency=(--set "channel.latency_ns=$latency")
  "$BIN" run -q --no-trace --arch configs/arch/gemmini.yaml --workload configs/workloads/models/resnet50-padded-b4.yaml \
    "${set_latency[@]}" --out "$OUT/resnet50-latency-$latency" 2>>"$OUT/runs.log"
done
python3 - "$OUT" <<'PY'
import json, sys
sys.path.insert(0, "validation")
from published import Results
out = sys.argv[1]
def cycles(run):
    return json.load(open(f"{out}/{run}/summary.json"))["total"]["cycles"] / 1e6
r = Results()
r.row("ResNet-50, 4 images: cycles", 153.7, "M cycles", cycles("resnet50-latency-preset"),
      "calibration (the DMA latency of gemmini.yaml)")
r.row("ResNet-50, 4 images, no DMA latency (nothing fitted)", 153.7, "M cycles",
      cycles("resnet50-latency-0"), "mechanisms alone")
r.write(out)
PY
