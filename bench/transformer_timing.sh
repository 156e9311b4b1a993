#!/usr/bin/env bash
# Issue 13's transformer runs through the full hierarchy of npu-128-hbm3, whole process, --no-trace:
# wall time (best of REPS), peak RSS, simulated cycles and the HBM bytes of every layer and kernel.
# The seed-002 RMSNorm (4096 x 4096 bf16) unfused and fused; seed 003's attention prefill (S 4096,
# 32 heads of 128, fp16) flash; one Llama-2-7B block in decode (B 1, L 4096). With LONG=1 also the
# materialized attention and the Llama prefill block (S 2048), materialized and flash (minutes).
# Usage: bench/transformer_timing.sh [build-dir] [reps]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build}/cstsim
REPS=${2:-1}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ARCH=configs/arch/npu-128-hbm3.yaml
printf 'tensors:\n  - {name: x, shape: [4096, 4096], dtype: bf16, role: activation}\n  - {name: w, shape: [4096], dtype: bf16, role: weight}\nops:\n  - {name: norm, op: rmsnorm, in: [x, w], out: y}\n' > "$TMP/rms.yaml"
attention() {  # tiling -> file
  printf 'tensors:\n  - {name: q, shape: [1, 4096, 4096], dtype: fp16, role: activation}\n  - {name: k, shape: [1, 4096, 4096], dtype: fp16, role: activation}\n  - {name: v, shape: [1, 4096, 4096], dtype: fp16, role: activation}\nops:\n  - {name: attn, op: attention, in: [q, k, v], out: o, heads: 32, tiling: %s}\n' "$1" > "$TMP/attn-$1.yaml"
  echo "$TMP/attn-$1.yaml"
}

run() {  # name, args... -> best wall seconds, peak RSS, cycles, HBM bytes
  local name=$1; shift
  local best= rss=
  for _ in $(seq "$REPS"); do
    read -r wall kb <<< "$(/usr/bin/time -f "%e %M" "$BIN" run -q --no-trace "$@" --arch "$ARCH" --out "$TMP/r" 2>&1 >/dev/null | tail -1)"
    if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$wall; fi
    rss=$kb
  done
  python3 - "$TMP/r/summary.json" "$name" "$best" "$rss" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
hbm = sum(l["memory"]["hbm_bytes_read"] + l["memory"]["hbm_bytes_written"] for l in s["layers"])
if "vector" in s:
    hbm += s["vector"]["total"]["hbm_bytes_read"] + s["vector"]["total"]["hbm_bytes_written"]
for f in s.get("flash_attention", []):
    hbm += f["memory"]["hbm_bytes_read"] + f["memory"]["hbm_bytes_written"]
print(f"{sys.argv[2]:<46} {float(sys.argv[3]):8.2f} s {int(sys.argv[4]) / 1024:7.1f} MB "
      f"{s['total']['cycles']:>11} cycles {hbm / 1e6:10.2f} MB HBM  util {s['total']['utilization']:.3f}")
PY
}

run "RMSNorm 4096x4096 bf16, unfused (6 kernels)" --workload "$TMP/rms.yaml" --set vector.fusion=none
run "RMSNorm 4096x4096 bf16, fused" --workload "$TMP/rms.yaml"
run "attention S 4096, 32 heads, flash" --workload "$(attention flash)"
run "Llama-2-7B decode block, B 1, L 4096" --workload configs/workloads/models/llama2-7b-decode-b1-l4096.yaml
if [ "${LONG:-0}" = 1 ]; then
  run "attention S 4096, 32 heads, materialized" --workload "$(attention materialized)"
  run "Llama-2-7B prefill block S 2048, materialized" --workload configs/workloads/models/llama2-7b-prefill-s2048.yaml
  run "Llama-2-7B prefill block S 2048, flash" --workload configs/workloads/models/llama2-7b-prefill-s2048-flash.yaml
fi
