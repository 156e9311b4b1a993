#!/usr/bin/env bash
# Decode GEMVs 1 x N x 4096 (int8: N x 4 KiB of weights) through the full hierarchy of
# npu-128-hbm3, N = 2k..16k: wall time (best of REPS), peak RSS, with and without the trace, and
# the wall time per MiB moved. Issue 12's scaling case: time and memory should grow with what is
# in flight, not with the bytes moved. Usage: bench/gemv_scaling.sh [build-dir] [reps]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build}/cstsim
REPS=${2:-3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ARCH=configs/arch/npu-128-hbm3.yaml
printf '%-7s %-9s %10s %10s %12s %12s\n' N trace wall_s rss_MB s_per_MiB cycles
for N in 2048 4096 8192 16384; do
  printf 'layers:\n  - {name: gemv, M: 1, N: %d, K: 4096}\n' "$N" > "$TMP/w.yaml"
  for mode in trace no-trace; do
    flag=(); [ "$mode" = no-trace ] && flag=(--no-trace)
    best= rss=
    for _ in $(seq "$REPS"); do
      out=$(/usr/bin/time -f "%e %M" "$BIN" run -q "${flag[@]}" --arch "$ARCH" --workload "$TMP/w.yaml" \
            --out "$TMP/r" 2>&1 >/dev/null | tail -1)
      read -r wall kb <<< "$out"
      if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$wall; fi
      rss=$kb
    done
    cycles=$(python3 -c "import json;print(json.load(open('$TMP/r/summary.json'))['total']['cycles'])")
    mib=$(( N * 4096 / 1048576 ))
    printf '%-7d %-9s %10.2f %10.1f %12.4f %12d\n' "$N" "$mode" "$best" "$(awk -v k="$rss" 'BEGIN{print k/1024}')" \
      "$(awk -v s="$best" -v m="$mib" 'BEGIN{print s/m}')" "$cycles"
  done
done
