#!/usr/bin/env bash
# cstsim serve, whole process (/usr/bin/time: CPU = user + system, children included): the shipped
# 1,000-request generator on Llama-2-7B, npu-llm-hbm3, from an empty cache (every grid point
# simulated), then again from the cache it filled (the loop alone). docs/serving.md, "What it costs".
# Usage: bench/serve_timing.sh [build-dir] [extra serve options, e.g. -j 2]
# ARCH, MODEL, REQUESTS override the case.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build}/cstsim
shift || true
ARCH=${ARCH:-configs/arch/npu-llm-hbm3.yaml}
MODEL=${MODEL:-configs/models/llama2-7b.yaml}
REQUESTS=${REQUESTS:-configs/requests/poisson-1000.yaml}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
run() {  # label, extra options
  local label=$1
  shift
  /usr/bin/time -o "$TMP/time" -f "%U %S %e" "$BIN" serve -q --arch "$ARCH" --model "$MODEL" --requests "$REQUESTS" \
    --cache "$TMP/cache" --out "$TMP/out" --force "$@" >/dev/null
  read -r u s e < <(tail -1 "$TMP/time")
  python3 -c "import json;s=json.load(open('$TMP/out/summary.json'));p=s['pricing']
print('%-7s cpu %8.1f s  wall %8.1f s  iterations %6d  points %3d (simulated %3d)  %.1f output tok/s' % ('$label', $u + $s, $e, s['iterations'], p['points'], p['simulated'], s['throughput']['output_tokens_per_s']))"
}
run cold "$@"
run cached "$@"
