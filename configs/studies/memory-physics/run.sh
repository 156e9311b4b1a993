#!/usr/bin/env bash
# Runs the four memory-physics studies and draws their figures into docs/figures/.
# Usage: configs/studies/memory-physics/run.sh [build-dir] [out-dir]   (about 30 s on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN=${1:-build}/cstsim
OUT=${2:-out/studies/memory-physics}
for study in gemv-channels:channels gemm-noc:noc refresh-energy:refresh prefetch:prefetch; do
  spec=${study%%:*} kind=${study##*:}
  "$BIN" sweep "configs/studies/memory-physics/$spec.yaml" --out "$OUT/$spec" --jobs 2
  /usr/bin/python3 traces/plot/plot_memory_physics.py "$kind" "$OUT/$spec" --out "docs/figures/memory-physics-$spec"
done
/usr/bin/python3 traces/plot/plot_memory_physics.py prefetch-layers "$OUT/prefetch" --out docs/figures/memory-physics-prefetch-layers
