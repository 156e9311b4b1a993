#!/usr/bin/env bash
# TPU v1 (Jouppi et al., "In-Datacenter Performance Analysis of a Tensor Processing Unit",
# ISCA 2017) against the tpu-v1-ddr3 preset: the paper's LSTM1 tiling example on its 256 x 256
# unit and on a 512 x 512 one, the memory-bound apps (MLP0, MLP1, LSTM0, LSTM1) against their measured rates, the
# compute-bound CNN0 stand-in, and power at full load. Writes results.csv; README.md says
# what each row is and which one (if any) was used to set a parameter.
#
#   validation/tpu-v1/run.sh [build-dir] [out-dir]          (about 10 s)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-build}/cstsim
OUT=${2:-out/validation/tpu-v1}
ARCH=configs/arch/tpu-v1-ddr3.yaml
rm -rf "$OUT" && mkdir -p "$OUT"

# LSTM1's 600 x 600 weight matrix at LSTM1's batch (96, Table 1).
cat >"$OUT/lstm1-600.yaml" <<YAML
name: lstm1-600
source: "Jouppi et al., ISCA 2017: LSTM1's 600 x 600 matrix (its tiling example), batch 96 (Table 1)"
layers:
  - {name: w600, M: 96, N: 600, K: 600}
YAML
# MLP1 stand-in: 4 FC layers, 5 M weights, batch 168 (Table 1); the widths are not published.
cat >"$OUT/mlp1.yaml" <<YAML
name: mlp1
source: "Jouppi et al., ISCA 2017, Table 1 (MLP1: 4 FC, 5M weights, batch 168); widths assumed 1120"
layers:
  - {name: fc1, M: 168, N: 1120, K: 1120}
  - {name: fc2, M: 168, N: 1120, K: 1120}
  - {name: fc3, M: 168, N: 1120, K: 1120}
  - {name: fc4, M: 168, N: 1120, K: 1120}
YAML
# LSTM0 and LSTM1 stand-ins: their FC layers only (Table 1: 24 FC, 52 M weights, batch 64; 37 FC,
# 34 M weights, batch 96), every layer square with the app's mean weights; their vector ops
# (34 and 19) are not run. The widths are assumed.
lstm() {  # name, layers, width, batch
  { echo "name: $1"
    echo "source: \"Jouppi et al., ISCA 2017, Table 1 ($1: $2 FC, batch $4); widths assumed $3\""
    echo "layers:"
    for ((i = 1; i <= $2; ++i)); do echo "  - {name: fc$i, M: $4, N: $3, K: $3}"; done
  } >"$OUT/$1.yaml"
}
lstm lstm0 24 1472 64
lstm lstm1 37 959 96
run() { "$BIN" run -q "$@" 2>>"$OUT/runs.log"; }
run --no-trace --arch "$ARCH" --workload "$OUT/lstm1-600.yaml" --out "$OUT/tile-256"
# The 512 x 512 unit of the paper's example: four times the PEs, weight tiles of 256 KiB.
run --no-trace --arch "$ARCH" --set array.rows=512 --set array.cols=512 --set sram.filter_kib=1024 \
  --workload "$OUT/lstm1-600.yaml" --out "$OUT/tile-512"
run --no-trace --arch "$ARCH" --workload configs/workloads/mlp-tpu.yaml --out "$OUT/mlp0"
run --no-trace --arch "$ARCH" --workload "$OUT/mlp1.yaml" --out "$OUT/mlp1"
run --no-trace --arch "$ARCH" --workload "$OUT/lstm0.yaml" --out "$OUT/lstm0"
run --no-trace --arch "$ARCH" --workload "$OUT/lstm1.yaml" --out "$OUT/lstm1"
run --arch "$ARCH" --workload configs/workloads/cnn-large-conv.csv --out "$OUT/cnn0"

python3 - "$OUT" <<'PY'
import json, sys
sys.path.insert(0, "validation")
from published import Results, chip_joules
out = sys.argv[1]
def summary(run): return json.load(open(f"{out}/{run}/summary.json"))
def tops(run):
    s = summary(run)
    return 2 * s["total"]["macs"] / s["total"]["time_s"] / 1e12
r = Results()
r.row("LSTM1 600x600 tiling example, 256x256 unit (9 tiles)", 18, "us", summary("tile-256")["total"]["time_s"] * 1e6, "prediction")
r.row("LSTM1 600x600 tiling example, 512x512 unit (4 tiles)", 32, "us", summary("tile-512")["total"]["time_s"] * 1e6, "prediction")
r.row("MLP0 (5 FC, batch 200; widths assumed)", 12.3, "TOPS", tops("mlp0"), "prediction")
r.row("MLP1 (4 FC, batch 168; widths assumed)", 9.7, "TOPS", tops("mlp1"), "prediction")
r.row("LSTM0 (24 FC, batch 64; widths assumed, vector ops not run)", 3.7, "TOPS", tops("lstm0"), "prediction")
r.row("LSTM1 (37 FC, batch 96; widths assumed, vector ops not run)", 2.8, "TOPS", tops("lstm1"), "prediction")
r.row("CNN0 stand-in (one 3x3x256 convolution)", 86.0, "TOPS", tops("cnn0"), "prediction")
watts = chip_joules(f"{out}/cnn0") / summary("cnn0")["total"]["time_s"]  # the die's: DRAM is off it
r.row("power at full load (CNN0 stand-in), per die", 40, "W", watts, "calibration (k of tpu-v1-28nm.yaml)")
# At 10 % load the die idles 90 % of the time: static power throughout, a tenth of the dynamic.
static = 28.0
r.row("power at 10 % load, share of full-load power (CNN0)", 88, "%", 100 * (static + 0.1 * (watts - static)) / watts,
      "prediction")
r.write(out)
PY
