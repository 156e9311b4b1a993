#!/usr/bin/env bash
# Runs the precision sweep and the BERT-base layer's training step at each recompute policy, and
# prints the tables of README.md. Usage: configs/studies/precision-training/run.sh [build-dir]
# [out-dir]   (about 1 min on 2 cores; add --llama for the Llama-2-7B block, about 15 min a run)
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN=${1:-build}/cstsim
OUT=${2:-out/studies/precision-training}
"$BIN" sweep configs/studies/precision-training/precision.yaml --out "$OUT/precision" --jobs 2
models=(bert-base-layer-s512)
[[ " $* " == *" --llama "* ]] && models+=(llama2-7b-prefill-s2048)
for model in "${models[@]}"; do
  for train in forward none selective full; do
    args=(); [[ $train != forward ]] && args=(--train "$train")
    "$BIN" run -q --arch configs/arch/npu-128-hbm3.yaml --set precision.operand=bf16 \
      --workload "configs/workloads/models/$model.yaml" "${args[@]}" --out "$OUT/$model-$train"
  done
done
/usr/bin/python3 - "$OUT" "${models[@]}" <<'PY'
import csv, json, sys
out = sys.argv[1]
print("workload | type | cycles | ideal | stall | HBM bytes read | E_gross (uJ)")
for r in csv.DictReader(open(f"{out}/precision/results.csv")):
    print(r["workload"], r["precision.operand"], r["cycles"], r["ideal_cycles"], r["stall_cycles"], r["dram_bytes"],
          "%.1f" % (float(r["energy.E_gross"]) * 1e6), sep=" | ")
print("\nmodel | step | cycles | GEMM MACs | recomputed MACs | kept activations (B) | M_peak hbm (B) | E_gross (mJ)")
for model in sys.argv[2:]:
    for train in ("forward", "none", "selective", "full"):
        s = json.load(open(f"{out}/{model}-{train}/summary.json"))
        r = json.load(open(f"{out}/{model}-{train}/report.json"))["total"]
        t = s.get("training", {})
        print(model, train, s["total"]["cycles"], s["total"]["macs"], t.get("macs", {}).get("recomputed", 0),
              t.get("stored_activation_bytes", 0), int(r["Theta_CST"]["M_peak"]["by_level"]["hbm"]["value"]),
              "%.2f" % (r["energy"]["E_gross"]["value"] * 1e3), sep=" | ")
PY
