#!/usr/bin/env bash
# --fidelity sampled against exact on the LLM cases of npu-128-hbm3 (docs/sampling.md), whole
# process, --no-trace: CPU seconds (user + system, /usr/bin/time), cycles, the error and the
# reported 95 % interval. EXACT=0 skips the exact runs (the 32-block step takes ~8 min exact).
# Usage: bench/sampled_timing.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build}/cstsim
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ARCH=configs/arch/npu-128-hbm3.yaml
M=configs/workloads/models
printf 'layers:\n  - {name: gemm, M: 4096, N: 4096, K: 4096}\n' > "$TMP/gemm4096.yaml"

run() {  # fidelity, workload -> "cpu_s cycles ci95"
  local out="$TMP/$1" t
  /usr/bin/time -o "$TMP/time" -f "%U %S" "$BIN" run -q --force --no-trace --fidelity "$1" --arch "$ARCH" \
    --workload "$2" --out "$out" >/dev/null 2>&1
  t=$(tail -1 "$TMP/time")
  python3 -c "import json,sys;s=json.load(open('$out/summary.json'))['total'];u,y=map(float,'$t'.split());print(f'{u+y:.2f} {s[\"cycles\"]} {s[\"cycles_ci95\"]:.0f}')"
}

printf '%-34s %10s %14s %10s %14s %8s %9s\n' case exact_s exact_cycles sampled_s sampled_cycles err_% ci95_%
for w in "$M/llama2-7b-decode-b1-l4096.yaml" "$M/llama2-7b-prefill-s512.yaml" "$TMP/gemm4096.yaml" \
         "$M/llama2-7b-prefill-s2048.yaml" "$M/llama2-7b-decode-step-b1-l4096.yaml"; do
  read -r ss sc sci <<< "$(run sampled "$w")"
  if [ "${EXACT:-1}" = 1 ]; then read -r es ec _ <<< "$(run exact "$w")"; else es=-; ec=$sc; fi
  awk -v n="$(basename "$w" .yaml)" -v es="$es" -v ec="$ec" -v ss="$ss" -v sc="$sc" -v ci="$sci" \
    'BEGIN{printf "%-34s %10s %14s %10s %14s %+8.3f %9.3f\n", n, es, ec, ss, sc, 100*(sc-ec)/ec, 100*ci/ec}'
done
