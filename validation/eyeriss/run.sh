#!/usr/bin/env bash
# Eyeriss (Chen, Krishna, Emer, Sze, IEEE JSSC 52(1), 2017) against the eyeriss preset: AlexNet's
# five convolutions at batch 4 (Table V totals: latency, DRAM traffic, chip power), the preset's
# calibration, and VGG-16's thirteen at batch 3 (0.7 fps, 321.1 MB, 236 mW), a prediction. Writes
# results.csv. The per-layer AlexNet study and figure: configs/studies/eyeriss-alexnet/run.sh.
#
#   validation/eyeriss/run.sh [build-dir] [out-dir]          (about 25 s)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${1:-build}/cstsim
OUT=${2:-out/validation/eyeriss}
rm -rf "$OUT" && mkdir -p "$OUT"
# Warnings (the ReLUs and poolings run off the array, as on the chip) go to runs.log.
"$BIN" run -q --arch configs/arch/eyeriss.yaml --workload configs/workloads/models/alexnet-conv-b4.yaml \
  --out "$OUT/alexnet" 2>>"$OUT/runs.log"
"$BIN" run -q --arch configs/arch/eyeriss.yaml --workload configs/workloads/models/vgg16-conv-b3.yaml \
  --out "$OUT/vgg16" 2>>"$OUT/runs.log"
python3 - "$OUT" <<'PY'
import json, sys
sys.path.insert(0, "validation")
from published import Results, chip_joules
out = sys.argv[1]
def measure(run):
    s = json.load(open(f"{out}/{run}/summary.json"))
    seconds = s["total"]["time_s"]
    dram = sum(l["rs"]["dram_bytes"]["total"] for l in s["layers"] if "rs" in l) / 1e6
    return seconds, dram, chip_joules(f"{out}/{run}") / seconds * 1e3
r = Results()
seconds, dram, mw = measure("alexnet")
r.row("AlexNet CONV1-5, batch 4: latency", 115.3, "ms", seconds * 1e3, "calibration")
r.row("AlexNet CONV1-5, batch 4: DRAM traffic", 15.4, "MB", dram, "calibration")
r.row("AlexNet CONV1-5, batch 4: chip power", 278, "mW", mw, "calibration (clock and control power of eyeriss-65nm.yaml)")
# Per layer (Table V; the table is an image in the copies we hold and its values were transcribed
# by hand, REFERENCES.md 3.2): the clock-and-control power was fitted on the total, so how it
# spreads over the layers is a prediction.
report = json.load(open(f"{out}/alexnet/report.json"))
times = {l["name"]: l["time_s"] for l in json.load(open(f"{out}/alexnet/summary.json"))["layers"]}
for layer, published in (("conv1", 332), ("conv2", 288), ("conv3", 266), ("conv4", 235), ("conv5", 236)):
    e = next(l for l in report["layers"] if l["name"] == layer)["energy"]
    joules = e["E_gross"]["value"] - sum(v["value"] for k, v in e["E_marg_by_action"].items() if k.startswith("hbm"))
    r.row(f"AlexNet {layer.upper()}, batch 4: chip power", published, "mW", joules / times[layer] * 1e3, "prediction")
seconds, dram, mw = measure("vgg16")
r.row("VGG-16 CONV, batch 3: frame rate", 0.7, "fps", 3 / seconds, "prediction")
r.row("VGG-16 CONV, batch 3: DRAM traffic", 321.1, "MB", dram, "prediction")
r.row("VGG-16 CONV, batch 3: chip power", 236, "mW", mw, "prediction")
r.write(out)
PY
