#!/usr/bin/env bash
# Timed end-to-end CLI runs (process start-up, parsing, SystemC, writing outputs),
# the figure to compare with SCALE-Sim v2's wall-clock times. Usage: bench/cli_timing.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build}/cstsim
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

time_run() {  # name, reps, args... -> best wall seconds of reps
  local name=$1 reps=$2; shift 2
  local best=
  for _ in $(seq "$reps"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$BIN" run -q "$@" --out "$OUT/run" >/dev/null
    t1=$(date +%s.%N)
    best=$(echo "$t0 $t1 $best" | awk '{d=$2-$1; if ($3=="" || d<$3) print d; else print $3}')
  done
  local cycles
  cycles=$(python3 -c "import json;print(json.load(open('$OUT/run/summary.json'))['total']['cycles'])")
  printf '%-44s %10.4f s  %12d cycles  %14.0f cycles/s\n' "$name" "$best" "$cycles" "$(echo "$cycles $best" | awk '{print $1/$2}')"
}

time_run "GEMM 1024^3, 128x128 WS, timing" 5 --arch configs/arch/npu-128.yaml --workload configs/workloads/gemm-1024.yaml
time_run "GEMM 1024^3, 128x128 WS, scalesim, timing" 5 --arch configs/arch/npu-128.yaml --set fold_pipeline=scalesim --workload configs/workloads/gemm-1024.yaml
time_run "ResNet-18, 32x32 OS (scale.cfg), timing" 5 --arch tests/golden/scalesim-v2/inputs/scale.cfg --workload configs/workloads/resnet18.csv
time_run "GEMM 1024^3, 128x128 WS, --verify" 1 --verify --arch configs/arch/npu-128.yaml --workload configs/workloads/gemm-1024.yaml
time_run "ResNet-18, 32x32 OS (scale.cfg), --verify" 1 --verify --arch tests/golden/scalesim-v2/inputs/scale.cfg --workload configs/workloads/resnet18.csv
# The full memory hierarchy (memory: hierarchy: HBM3 bank timing + mesh NoC + DMA + banked scratchpad).
time_run "GEMM 1024^3, npu-128-hbm3 (full hierarchy)" 5 --arch configs/arch/npu-128-hbm3.yaml --workload configs/workloads/gemm-1024.yaml
time_run "  the same, --no-trace" 5 --no-trace --arch configs/arch/npu-128-hbm3.yaml --workload configs/workloads/gemm-1024.yaml
time_run "  the same, clusters=4" 3 --set clusters=4 --arch configs/arch/npu-128-hbm3.yaml --workload configs/workloads/gemm-1024.yaml
time_run "ResNet-18, npu-128-hbm3 (full hierarchy)" 3 --arch configs/arch/npu-128-hbm3.yaml --workload configs/workloads/resnet18.csv
