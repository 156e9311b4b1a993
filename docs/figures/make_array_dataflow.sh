#!/usr/bin/env bash
# Regenerates the array-dataflow figures of docs/guide.md: runs configs/sweeps/array-dataflow.yaml
# (54 points, ~30 s with --jobs 2; resumes if already run) and draws the four figures into
# docs/figures/ (PNG at 300 dpi and PDF). Usage: docs/figures/make_array_dataflow.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-build}/cstsim
S=out/sweeps/array-dataflow
P="/usr/bin/python3 traces/plot"
"$BIN" sweep configs/sweeps/array-dataflow.yaml --out "$S" --jobs "$(nproc)"
"$BIN" pareto "$S/results.csv" --axes cycles,energy,pes
$P/plot_sweep_heatmap.py "$S" --x array.rows --y dataflow --metric cycles,energy,utilization --facet workload \
  --xlabel "array size (rows = cols)" --out docs/figures/array-dataflow-heatmap
$P/plot_pareto.py "$S" --x cycles --y energy --front cycles,energy,pes --color dataflow --size pes \
  --label array.rows --facet workload --out docs/figures/array-dataflow-pareto
$P/plot_sweep_roofline.py "$S" --out docs/figures/array-dataflow-roofline
$P/plot_rt_compare.py "$S" --points 6,7,8 --out docs/figures/array-dataflow-rt   # ResNet-18, 32x32, ws/os/is
