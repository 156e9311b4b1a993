#!/usr/bin/env bash
# Exact mode against another build, side by side: the Llama-2-7B decode block on npu-128-hbm3,
# --no-trace, the two builds alternating REPS times, each with its own checkout's configs (a key
# renamed between builds would fail the other's). Prints each run's CPU seconds (user + system,
# /usr/bin/time), the medians, the median of the pair ratios, and whether the cycles agree.
# A ratio against a figure measured another day is not a measurement: this host's speed drifts
# by 20 % and more within minutes (bench/README, "Exact mode, seventh sitting").
# Usage: bench/exact_vs.sh OTHER_CHECKOUT [reps]   (OTHER_CHECKOUT/build/cstsim built, Release)
#   e.g. git worktree add /tmp/base 4b67801 && cmake -S /tmp/base -B /tmp/base/build -G Ninja \
#        -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/base/build --target cstsim
set -euo pipefail
cd "$(dirname "$0")/.."
OTHER=$(realpath "$1")
REPS=${2:-3}
W=configs/workloads/models/llama2-7b-decode-b1-l4096.yaml
A=configs/arch/npu-128-hbm3.yaml
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

run() {  # root, binary, extra flags -> "cpu_s cycles"
  /usr/bin/time -o "$TMP/time" -f "%U %S" "$2" run -q --force --no-trace $3 --arch "$1/$A" --workload "$1/$W" \
    --out "$TMP/out" >/dev/null 2>&1
  python3 -c "import json;u,s=open('$TMP/time').read().split()[-2:];print(f'{float(u)+float(s):.2f}', json.load(open('$TMP/out/summary.json'))['total']['cycles'])"
}

# The other build may predate --fidelity (exact was its only mode).
other_flags=""
"$OTHER/build/cstsim" run --help 2>&1 | grep -q -- "--fidelity" && other_flags="--fidelity exact"
printf '%-4s %10s %10s %8s\n' rep this_s other_s ratio
this=() other=() ratios=()
for i in $(seq "$REPS"); do
  read -r ts tc <<< "$(run "$PWD" build/cstsim "--fidelity exact")"
  read -r os oc <<< "$(run "$OTHER" "$OTHER/build/cstsim" "$other_flags")"
  [ "$tc" = "$oc" ] || echo "cycles differ: this $tc, other $oc"
  this+=("$ts") other+=("$os") ratios+=("$(awk -v a="$ts" -v b="$os" 'BEGIN{printf "%.3f", a/b}')")
  printf '%-4s %10s %10s %8s\n' "$i" "$ts" "$os" "${ratios[-1]}"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
printf 'median: this %s s, other %s s, ratio %s (speed-up %s)\n' "$(median "${this[@]}")" "$(median "${other[@]}")" \
  "$(median "${ratios[@]}")" "$(awk -v r="$(median "${ratios[@]}")" 'BEGIN{printf "%.2fx", 1/r}')"
