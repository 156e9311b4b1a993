#!/usr/bin/env bash
# The same work in different spacetime shapes (seed 000's 8 devices x 10 s against 1 x 80 s):
#  A. one Llama-2-7B block (512-token prompt, bf16) on 1, 2, 4 and 8 npu-128-hbm3 chips joined by
#     NVLink 4 through a switch, split by tensor parallelism: the same MACs and nearly the same
#     PE-seconds (V_C) in a shorter, wider shape, with Γ_comm and energy growing with the chips;
#  B. a small GEMM chain on a slow ring (16 GB/s, 2 us a hop), bound by its all-reduce's latencies:
#     adding chips makes the wall time worse (Invariant 8);
#  C. one Llama-2-7B decode step (batch 8) on 4 chips split by tensors, data or pipeline stages.
# Prints a table of each and draws spacetime-shape.png/.pdf. Usage:
#   configs/studies/spacetime-shape/run.sh [build-dir] [out-dir]     (about 10 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN=${1:-build}/cstsim
OUT=${2:-out/studies/spacetime-shape}
HERE=configs/studies/spacetime-shape
rm -rf "$OUT" && mkdir -p "$OUT"
for n in 1 2 4 8; do
  chips=""
  [[ $n -gt 1 ]] && chips="--set chips=$n --set interconnect.topology=switch --set interconnect.link=configs/interconnect/nvlink4-h100.yaml"
  # shellcheck disable=SC2086
  "$BIN" run -q --arch configs/arch/npu-128-hbm3.yaml --workload configs/workloads/models/llama2-7b-prefill-s512.yaml \
    --set precision.operand=bf16 $chips --out "$OUT/llama-$n" 2>>"$OUT/runs.log"
  chips=""
  [[ $n -gt 1 ]] && chips="--set chips=$n --set interconnect.topology=ring --set interconnect.link=$HERE/slow-link.yaml"
  # shellcheck disable=SC2086
  "$BIN" run -q --arch $HERE/small-chip.yaml --workload $HERE/small-chain.yaml $chips --out "$OUT/small-$n" 2>>"$OUT/runs.log"
done
# C. One decode step of Llama-2-7B for a batch of 8 (4096 tokens of KV cache each) on one chip and on
#    4 chips split by tensors, by data (2 samples a chip) and into pipeline stages (one micro-batch,
#    then 8 of one sample each).
LINK="--set interconnect.topology=switch --set interconnect.link=configs/interconnect/nvlink4-h100.yaml"
for split in one "tp4 --set chips=4" "dp4 --set chips=4 --set parallel.data=4" \
             "pp4m1 --set chips=4 --set parallel.pipeline=4" \
             "pp4 --set chips=4 --set parallel.pipeline=4 --set parallel.micro_batches=8"; do
  read -r name sets <<<"$split"
  [[ $name != one ]] && sets="$sets $LINK"
  # shellcheck disable=SC2086
  "$BIN" run -q --arch configs/arch/npu-128-hbm3.yaml --workload configs/workloads/models/llama2-7b-decode-b8-l4096.yaml \
    --set precision.operand=bf16 $sets --out "$OUT/decode-$name" 2>>"$OUT/runs.log"
done
/usr/bin/python3 "$HERE/table.py" "$OUT"
