#!/usr/bin/env bash
# cstsim's HBM model against Ramulator 2 on the same request streams: one HBM3 channel as
# Ramulator 2 models it (hbm3-2gbps-ramulator2.yaml), 40,000 reads of 32 B, sequential and
# uniformly random over the 1 GiB channel, each saturating the controller and spaced 64 cycles
# apart (unloaded). Prints bandwidth and mean read latency side by side with the error, and
# writes results.csv. README.md says how to build Ramulator 2 and what the numbers mean.
#
#   validation/hbm-ramulator2/run.sh [build-dir] [out-dir]
#       RAMULATOR2=/path/to/ramulator2 runs it too; without it, the recorded results in
#       ramulator2-results.csv stand for its side.
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-build}/cstsim
OUT=${2:-out/validation/hbm-ramulator2}
HERE=validation/hbm-ramulator2
rm -rf "$OUT" && mkdir -p "$OUT" && OUT=$(realpath "$OUT")

# The streams, in Ramulator 2's LoadStoreTrace form (cstsim hbm-bench --pattern trace reads it).
python3 - "$OUT" <<'PY'
import random, sys
out = sys.argv[1]
n = 40000
with open(f"{out}/seq.trace", "w") as f:
    for i in range(n):
        f.write(f"LD {32 * i}\n")
rng = random.Random(7)
with open(f"{out}/random.trace", "w") as f:
    for _ in range(n):
        f.write(f"LD {32 * rng.randrange(1 << 25)}\n")  # 2^25 transactions of 32 B: the channel's 1 GiB
PY

if [[ -n "${RAMULATOR2:-}" ]]; then
  echo "stream,load,requests,cycles,avg_read_latency" >"$OUT/ramulator2-results.csv"
  for stream in seq random; do
    for load in saturated unloaded; do
      ratio=1; [[ $load == unloaded ]] && ratio=64  # the memory ticks 64 times per request offered
      sed -e "s#@TRACE@#$OUT/$stream.trace#" -e "s#@RATIO@#$ratio#" "$HERE/ramulator2.yaml.in" >"$OUT/r2-$stream-$load.yaml"
      "$RAMULATOR2" -f "$OUT/r2-$stream-$load.yaml" >"$OUT/r2-$stream-$load.log" 2>&1
      cycles=$(awk '/memory_system_cycles/ {print $2}' "$OUT/r2-$stream-$load.log")
      latency=$(awk '/avg_read_latency_0/ {print $2}' "$OUT/r2-$stream-$load.log")
      echo "$stream,$load,40000,$cycles,$latency" >>"$OUT/ramulator2-results.csv"
    done
  done
else
  cp "$HERE/ramulator2-results.csv" "$OUT/ramulator2-results.csv"
fi

for stream in seq random; do
  for load in saturated unloaded; do
    outstanding=32; [[ $load == unloaded ]] && outstanding=1
    "$BIN" hbm-bench --memory "$HERE/hbm3-2gbps-ramulator2.yaml" --pattern trace --trace "$OUT/$stream.trace" \
      --outstanding "$outstanding" --json >"$OUT/cstsim-$stream-$load.json"
  done
done

python3 - "$OUT" <<'PY'
import csv, json, sys
out = sys.argv[1]
rows, worst = [], 0.0
for r in csv.DictReader(open(f"{out}/ramulator2-results.csv")):
    c = json.load(open(f"{out}/cstsim-{r['stream']}-{r['load']}.json"))
    if r["load"] == "saturated":  # what the DRAM can move: bytes over time (tCK 1 ns)
        what, unit, ours = "bandwidth", "GB/s", c["bandwidth_gbps"]
        theirs = int(r["requests"]) * 32 / int(r["cycles"])
    else:
        # Unloaded read latency. Ramulator 2 stamps a request on the tick its frontend hands it
        # over, one before its controller can first act on it (the frontend ticks first in a
        # cycle); cstsim from the cycle its controller can. The same schedule: subtract 1.
        what, unit, ours = "read latency", "ns", c["latency_ns"]["mean"]
        theirs = float(r["avg_read_latency"]) - 1
    err = ours / theirs - 1
    worst = max(worst, abs(err))
    rows.append([f"{r['stream']} reads, {r['load']}: {what}", f"{theirs:.4g}", f"{ours:.4g}", unit, f"{100 * err:+.2f}"])
    print(f"{rows[-1][0]}: cstsim {rows[-1][2]} {unit}, Ramulator 2 {rows[-1][1]} {unit} ({rows[-1][4]} %)")
with open(f"{out}/results.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["quantity", "ramulator2", "cstsim", "unit", "error_pct"])
    w.writerows(rows)
print(f"worst error {100 * worst:.2f} %")
PY
