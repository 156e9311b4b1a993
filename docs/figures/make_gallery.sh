#!/usr/bin/env bash
# Regenerates the figures of docs/gallery.md: every figure `cstsim plot` draws for one run
# (ResNet-18 on npu-128-hbm3, traced) and for one sweep (configs/sweeps/gallery.yaml: two
# workloads, array size x dataflow, some points failing). PNGs into docs/figures/gallery/.
# Usage: docs/figures/make_gallery.sh [build-dir]   (a few minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${1:-build}/cstsim"
OUT=out/gallery
mkdir -p "$OUT" docs/figures/gallery
"$BIN" run -q --force --arch configs/arch/npu-128-hbm3.yaml --workload configs/workloads/resnet18.csv --out "$OUT/run"
"$BIN" plot --force "$OUT/run"
"$BIN" sweep configs/sweeps/gallery.yaml --out "$OUT/sweep" --jobs "$(nproc)" || [ $? -eq 1 ]   # 1: some points failed, as meant
"$BIN" plot --force "$OUT/sweep"
for f in rt power roofline layers-stalls layers-utilization layers-energy layers-traffic; do
  cp "$OUT/run/figures/$f.png" "docs/figures/gallery/run-$f.png"
done
for f in lines pareto roofline; do
  cp "$OUT/sweep/figures/$f.png" "docs/figures/gallery/sweep-$f.png"
done
