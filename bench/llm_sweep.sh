#!/usr/bin/env bash
# A 50-point LLM design sweep through the full hierarchy, sampled: one Llama-2-7B decode block
# (bf16, L 4096) at batch {1, 2, 4, 8, 16} x array {128, 256} x tile FIFO {2, 3, 4, 6, 8} tiles,
# `run: {trace: false, fidelity: sampled}`, two points at a time. Prints the wall time, the sum of
# the points' own wall times, and the largest interval relative to its cycles. Each point exact takes
# 12-13 s at batch 1 on this machine and more with the batch (bench/README.md).
# Usage: bench/llm_sweep.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-build}/cstsim")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cp "$BIN" "$T/cstsim"   # a private copy: a rebuild during the bench cannot disturb it
cat > "$T/llm50.yaml" <<SPEC
name: llm50
base: $PWD/configs/arch/npu-128-hbm3.yaml
workloads: [$PWD/configs/workloads/models/llama2-7b-decode-b1-l4096.yaml]
batch: [1, 2, 4, 8, 16]
grid:
  array.size: [128, 256]
  hbm.fifo_tiles: [2, 3, 4, 6, 8]
set:
  precision.operand: bf16
run:
  trace: false
  fidelity: sampled
SPEC
t0=$(date +%s.%N)
"$T/cstsim" sweep "$T/llm50.yaml" --out "$T/sw" --jobs 2 -q
t1=$(date +%s.%N)
python3 - "$T/sw/results.csv" "$t0" "$t1" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
done = [r for r in rows if r["status"] == "done"]
wall = float(sys.argv[3]) - float(sys.argv[2])
busy = sum(float(r["host_wall_s"]) for r in done if r.get("host_wall_s"))
worst = max(float(r["cycles_ci95"]) / float(r["cycles"]) for r in done)
sampled = sum(r["fidelity.result"] == "sampled" for r in done)
print(f"{len(done)} of {len(rows)} points done, {sampled} sampled; wall {wall:.1f} s, the points' own wall times add up to {busy:.1f} s; "
      f"widest interval {100 * worst:.3f} % of its cycles")
PY
