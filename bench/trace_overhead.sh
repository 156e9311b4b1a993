#!/usr/bin/env bash
# Cost of the R(t) trace + post-processing: the same run with and without it,
# best wall time of N, and peak RSS as the run gets longer. Usage: bench/trace_overhead.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build}/cstsim
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
best() {  # reps, args... -> best seconds
  local reps=$1; shift
  local b=
  for _ in $(seq "$reps"); do
    local t0 t1
    t0=$(date +%s%N); "$BIN" run -q "$@" --out "$TMP/r" >/dev/null; t1=$(date +%s%N)
    local d=$(( t1 - t0 ))
    if [ -z "$b" ] || [ "$d" -lt "$b" ]; then b=$d; fi
  done
  awk -v ns="$b" 'BEGIN{printf "%.4f", ns/1e9}'
}
rss() { /usr/bin/time -f "%M" "$BIN" run -q "$@" --out "$TMP/r" 2>&1 >/dev/null | tail -1; }
for m in 1024 4096 16384; do
  printf 'layers:\n  - {name: g, M: %d, N: 1024, K: 1024}\n' "$m" > "$TMP/w$m.yaml"
done
ARCH=configs/arch/npu-128.yaml
printf '%-34s %10s %10s %7s %12s %12s\n' run "trace(s)" "none(s)" ratio "RSS trace" "RSS none"
for m in 1024 4096 16384; do
  W="$TMP/w$m.yaml"
  t=$(best 10 --arch $ARCH --workload "$W"); n=$(best 10 --arch $ARCH --workload "$W" --no-trace)
  printf '%-34s %10s %10s %7.2f %9s KB %9s KB\n' "GEMM ${m}x1024x1024, 128x128 WS" "$t" "$n" \
    "$(awk -v a="$t" -v b="$n" 'BEGIN{print a/b}')" "$(rss --arch $ARCH --workload "$W")" \
    "$(rss --arch $ARCH --workload "$W" --no-trace)"
done
t=$(best 3 --verify --arch $ARCH --workload "$TMP/w1024.yaml"); n=$(best 3 --verify --arch $ARCH --workload "$TMP/w1024.yaml" --no-trace)
printf '%-34s %10s %10s %7.2f\n' "GEMM 1024^3 --verify" "$t" "$n" "$(awk -v a="$t" -v b="$n" 'BEGIN{print a/b}')"
