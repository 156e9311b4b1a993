#!/usr/bin/env bash
# Local sweep pool scaling: one 16-point sweep (ResNet-18, batch {1,2} x rows {16,24} x cols {16,24}
# x dataflow {ws,os}; each point a separate `cstsim run` of 0.3-1.2 s) with --jobs 1 and --jobs 2,
# best wall time of REPS runs each (fresh sweep directory every time). Also checks that both give
# the same results.csv (host_* timing columns aside). Usage: bench/sweep_bench.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-build}/cstsim")
REPS=${REPS:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cp "$BIN" "$T/cstsim"   # a private copy: a rebuild of build/ during the bench cannot disturb it
BIN=$T/cstsim
cat > "$T/bench16.yaml" <<SPEC
name: bench16
base: $PWD/configs/arch/npu-128.yaml
workloads: [$PWD/configs/workloads/resnet18.csv]
batch: [1, 2]
grid:
  array.rows: [16, 24]
  array.cols: [16, 24]
  dataflow: [ws, os]
SPEC

best() {  # jobs -> best wall seconds over REPS fresh sweeps
  local jobs=$1 b=
  for r in $(seq "$REPS"); do
    rm -rf "$T/sw$jobs"
    local t0 t1
    t0=$(date +%s.%N)
    "$BIN" sweep "$T/bench16.yaml" --out "$T/sw$jobs" --jobs "$jobs" -q
    t1=$(date +%s.%N)
    b=$(echo "$t0 $t1 $b" | awk '{d=$2-$1; if ($3=="" || d<$3) print d; else print $3}')
  done
  echo "$b"
}

n=$("$BIN" sweep "$T/bench16.yaml" --out "$T/count" --dry-run -q && tail -n +2 "$T/count/tasks.csv" | wc -l)
t1=$(best 1)
t2=$(best 2)
strip() { /usr/bin/python3 -c 'import csv,sys
r=list(csv.reader(open(sys.argv[1]))); k=[i for i,c in enumerate(r[0]) if not c.startswith("host_")]
print("\n".join(",".join(x[i] for i in k) for x in r))' "$1"; }
if [ "$(strip "$T/sw1/results.csv")" != "$(strip "$T/sw2/results.csv")" ]; then
  echo "error: --jobs 1 and --jobs 2 gave different results.csv" >&2
  exit 1
fi
printf '%d-point sweep on %d CPUs (best of %d; load average %s at the end): --jobs 1 %.2f s, --jobs 2 %.2f s, speedup %.2fx\n' \
  "$n" "$(nproc)" "$REPS" "$(cut -d' ' -f1-3 /proc/loadavg)" "$t1" "$t2" "$(echo "$t1 $t2" | awk '{print $1/$2}')"
