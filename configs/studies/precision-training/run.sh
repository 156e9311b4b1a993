#!/usr/bin/env bash
# Runs the precision sweep and the BERT-base layer's training step at each recompute policy, and
# prints the tables of README.md. Usage: configs/studies/precision-training/run.sh [build-dir]
# [out-dir]   (about 1 min on 2 cores; add --llama for the Llama-2-7B block, about 15 min a run)
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN=${1:-build}/cstsim
OUT=${2:-out/studies/precision-training}
"$BIN" sweep configs/studies/precision-training/precision.yaml --out "$OUT/precision" --jobs 2
# Stored types narrower than the operand: PE type, then the weights' (and activations') type.
stored=("int8" "int8 int4" "bf16" "bf16 fp8_e4m3" "bf16 int8" "bf16 fp8_e4m3 fp8_e4m3")
for w in gemm-1024 decode-gemv; do
  for s in "${stored[@]}"; do
    read -r op wt act <<<"$s"
    sets=(--set "precision.operand=$op"); [[ -n ${wt:-} ]] && sets+=(--set "precision.weight=$wt")
    [[ -n ${act:-} ]] && sets+=(--set "precision.activation=$act")
    "$BIN" run -q --no-trace --arch configs/arch/npu-128-hbm3.yaml "${sets[@]}" \
      --workload "configs/workloads/$w.yaml" --out "$OUT/stored/$w-${s// /-}"
  done
done
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
print("\nworkload | PE type | weights | activations | cycles | stall | HBM bytes read | largest stall")
import glob, os
for d in sorted(glob.glob(f"{out}/stored/*")):
    s = json.load(open(f"{d}/summary.json"))
    a, t = s["arch"], s["total"]
    cause = max(t["stalls"].items(), key=lambda kv: kv[1])[0]
    print(s["workload"]["name"], a["operand"], a.get("weight", a["operand"]), a.get("activation", a["operand"]),
          t["cycles"], t["stall_cycles"], sum(l["memory"]["hbm_bytes_read"] for l in s["layers"]), cause, sep=" | ")
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
