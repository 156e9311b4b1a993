#!/usr/bin/env bash
# The CLI's normal paths, each once, on small inputs: every command must exit 0. Run by
# tools/test_sanitize.sh on the sanitizer build (a report fails the run there); any cstsim works.
#   tools/cli_smoke.sh [CSTSIM]
set -euo pipefail
cd "$(dirname "$0")/.."
C=$(realpath "${1:-build/cstsim}")
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
n=0
step() {  # step NAME ARGS...: runs cstsim ARGS, fails the script with its output if it does not exit 0
  local name=$1
  shift
  n=$((n + 1))
  if ! "$C" "$@" > "$t/$name.out" 2> "$t/$name.err"; then
    echo "cli smoke: '$name' failed: cstsim $*"
    cat "$t/$name.err"
    exit 1
  fi
}
A=configs/arch W=configs/workloads
cat > "$t/g.yaml" <<'YAML'
name: g
layers:
  - {name: g1, M: 64, N: 48, K: 40}
  - {name: g2, M: 32, N: 64, K: 64}
YAML
step run-default run -q --arch $A/npu-128.yaml --workload $W/resnet18.csv --out "$t/r18"
step run-verify run -q --verify --arch $A/npu-128.yaml --workload "$t/g.yaml" --set array.rows=16 --set array.cols=16 --out "$t/v"
step run-verify-os run -q --verify --arch $A/npu-128.yaml --workload "$t/g.yaml" --set dataflow=os --set array.rows=8 --set array.cols=8 --out "$t/vos"
step run-hierarchy run -q --arch $A/npu-128-hbm3.yaml --workload $W/gemm-512.csv --out "$t/h"
step run-channel run -q --arch $A/tpu-v1-ddr3.yaml --workload $W/mlp-tpu.yaml --out "$t/c"
step run-eyeriss run -q --arch $A/eyeriss.yaml --workload $W/models/alexnet-conv-b4.yaml --no-trace --out "$t/rs"
step run-scalesim run -q --arch tests/golden/scalesim-v2/inputs/a8_ws_calc.cfg --workload tests/golden/scalesim-v2/inputs/gemm16.csv --out "$t/ss"
step run-chips run -q --arch $A/npu-128-hbm3.yaml --workload "$t/g.yaml" --set chips=2 --set interconnect.topology=ring --set interconnect.link=configs/interconnect/nvlink4-h100.yaml --out "$t/mc"
step run-bf16 run -q --arch $A/npu-128-fp.yaml --workload "$t/g.yaml" --set precision.operand=bf16 --out "$t/bf"
step plan plan --json --arch $A/npu-128-hbm3.yaml --workload $W/bert-base-layer.yaml
step post post "$t/h" --force
for f in perfetto vcd csv; do step "export-$f" export $f "$t/h"; done
step ledger ledger
step sweep sweep configs/sweeps/ci-small.yaml --out "$t/sw" --jobs 2
step pareto pareto "$t/sw/results.csv" --axes cycles,energy
step noc-bench noc-bench --rate 0.2 --cycles 2000 --warmup 200
step hbm-bench hbm-bench --memory configs/memory/hbm3-6400.yaml --pattern random --bytes 1MiB
step collective collective --link configs/interconnect/nvlink4-h100.yaml --bytes 16MiB --chips 4 --topology bidirectional_ring --algorithm bidirectional_ring
echo "cli smoke: $n commands ok"
