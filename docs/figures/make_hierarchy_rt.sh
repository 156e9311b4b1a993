#!/usr/bin/env bash
# Regenerates the full-hierarchy R(t) figure of docs/guide.md: GEMM 1024^3 on npu-128-hbm3
# (HBM3 + mesh NoC + DMA + banked scratchpad). Usage: docs/figures/make_hierarchy_rt.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-build}/cstsim
R=out/runs/npu-128-hbm3-gemm1024
"$BIN" run -q --arch configs/arch/npu-128-hbm3.yaml --workload configs/workloads/gemm-1024.yaml --out "$R"
/usr/bin/python3 traces/plot/plot_rt.py "$R" --out docs/figures/hierarchy-gemm1024-rt
