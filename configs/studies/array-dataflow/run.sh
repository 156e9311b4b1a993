#!/usr/bin/env bash
# The array-dataflow study: array sides {32, 64, 128, 256} x dataflows {ws, os, is, rs} x memory
# {ideal, hierarchy} on npu-128-hbm3, over ResNet-50 and a BERT-base layer (int8, cnn-bert.yaml) and a
# Llama-2-7B decode block and prefill block (bf16, llm.yaml): 128 points. Draws
# docs/figures/array-dataflow-study.{png,pdf} and writes the table of README.md to OUT/table.md.
# Usage: configs/studies/array-dataflow/run.sh [build-dir] [out-dir]   (about 30 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN=${1:-build}/cstsim
OUT=${2:-out/studies/array-dataflow}
HERE=configs/studies/array-dataflow
for spec in cnn-bert llm; do
  "$BIN" sweep "$HERE/$spec.yaml" --out "$OUT/$spec" --jobs 2
done
/usr/bin/python3 "$HERE/figure.py" "$OUT/cnn-bert" "$OUT/llm" --out docs/figures/array-dataflow-study --table "$OUT/table.md"
cat "$OUT/table.md"
