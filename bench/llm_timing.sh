#!/usr/bin/env bash
# Issue 12's large cases through the full hierarchy of npu-128-hbm3, whole process: wall time
# (best of REPS) and peak RSS, with and without the trace. GEMM 4096^3; one Llama-2-7B decoder
# layer in decode; with LONG=1 also the whole 32-layer decode step (minutes, without the trace).
# Usage: bench/llm_timing.sh [build-dir] [reps]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build}/cstsim
REPS=${2:-2}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ARCH=configs/arch/npu-128-hbm3.yaml
printf 'layers:\n  - {name: gemm, M: 4096, N: 4096, K: 4096}\n' > "$TMP/gemm4096.yaml"

run() {  # name, reps, args... -> best wall seconds, peak RSS of the last run, simulated cycles
  local name=$1 reps=$2; shift 2
  local best= rss=
  for _ in $(seq "$reps"); do
    read -r wall kb <<< "$(/usr/bin/time -f "%e %M" "$BIN" run -q "$@" --arch "$ARCH" --out "$TMP/r" 2>&1 >/dev/null | tail -1)"
    if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$wall; fi
    rss=$kb
  done
  local cycles
  cycles=$(python3 -c "import json;print(json.load(open('$TMP/r/summary.json'))['total']['cycles'])")
  printf '%-46s %9.2f s %8.1f MB %12d cycles\n' "$name" "$best" "$(awk -v k="$rss" 'BEGIN{print k/1024}')" "$cycles"
}

run "GEMM 4096^3" "$REPS" --workload "$TMP/gemm4096.yaml"
run "GEMM 4096^3, --no-trace" "$REPS" --no-trace --workload "$TMP/gemm4096.yaml"
run "Llama-2-7B decode layer (4 GEMVs)" "$REPS" --workload bench/workloads/llama2-7b-decode-layer.yaml
run "Llama-2-7B decode layer, --no-trace" "$REPS" --no-trace --workload bench/workloads/llama2-7b-decode-layer.yaml
if [ "${LONG:-0}" = 1 ]; then
  run "Llama-2-7B decode step (32 layers), --no-trace" 1 --no-trace --workload bench/workloads/llama2-7b-decode-step.yaml
fi
