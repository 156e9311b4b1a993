#!/usr/bin/env bash
# Runs AlexNet's five convolutions at batch 4 on the Eyeriss preset (row stationary, 480 MB/s
# DRAM link, run-length coded feature maps), prints each layer beside the chip's JSSC 2017
# Table V, draws eyeriss-alexnet.png/.pdf, and compares energy per MAC of RS with WS, OS and IS
# on the same 12 x 14 array and energy table. Usage:
#   configs/studies/eyeriss-alexnet/run.sh [build-dir] [out-dir]     (about 10 s on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/../../.."
BIN=${1:-build}/cstsim
OUT=${2:-out/studies/eyeriss-alexnet}
WORKLOAD=configs/workloads/models/alexnet-conv-b4.yaml
rm -rf "$OUT" && mkdir -p "$OUT"
# Warnings (the ReLUs and poolings run off the array, as on the chip) go to runs.log.
"$BIN" run -q --arch configs/arch/eyeriss.yaml --workload "$WORKLOAD" --out "$OUT/eyeriss" 2>>"$OUT/runs.log"
# The same array, clock, types and energy table with each dataflow, memory ideal (on-chip energy
# only: the fold dataflows' channel mode moves only their stationary tiles from DRAM).
for gating in false true; do
  for df in rs ws os is; do
    extra=""; [[ $df == rs ]] && extra="rs: {filter_spad: 224, ifmap_spad: 12, psum_spad: 24, glb_kib: 100}"
    cat >"$OUT/eyeriss-$df-$gating.yaml" <<YAML
name: eyeriss-$df
array: {rows: 12, cols: 14}
dataflow: $df
clock_hz: 2.0e8
precision: {operand: int16, accumulator: int16, macs_per_pe: {int16: 1}}
sparsity: {zero_gating: $gating}
$extra
energy: $PWD/configs/energy/eyeriss-65nm.yaml
YAML
    "$BIN" run -q --arch "$OUT/eyeriss-$df-$gating.yaml" --workload "$WORKLOAD" --out "$OUT/ideal-$df-$gating" 2>>"$OUT/runs.log"
  done
done
/usr/bin/python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
# JSSC 2017 Table V (batch 4): total and processing latency (ms), active PEs, GLB and DRAM
# accesses (MB of 16-bit words).
paper = {"conv1": (20.9, 16.5, 154, 18.5, 5.0), "conv2": (41.9, 39.2, 135, 77.6, 4.0),
         "conv3": (23.6, 21.8, 156, 50.2, 3.0), "conv4": (18.4, 16.0, 156, 37.4, 2.1),
         "conv5": (10.5, 10.0, 156, 24.9, 1.3)}
s = json.load(open(f"{out}/eyeriss/summary.json"))
clock = 2e8
rows = []
print("layer | latency ms (paper) | no-DRAM-stall ms (paper processing) | active PEs (paper) | "
      "GLB MB (paper) | DRAM MB (paper) | passes | n p q r t e m")
tot = [0.0] * 8
for l in s["layers"]:
    r, p = l["rs"], paper[l["name"]]
    lat, proc = l["time_s"] * 1e3, l["ideal_cycles"] / clock * 1e3
    glb = sum(r["glb_words"].values()) * 2 / 1e6
    dram = r["dram_bytes"]["total"] / 1e6
    m = r["mapping"]
    print(f"{l['name']} | {lat:.1f} ({p[0]}) | {proc:.1f} ({p[1]}) | {m['active_pes']} ({p[2]}) | {glb:.1f} ({p[3]}) | "
          f"{dram:.2f} ({p[4]}) | {r['passes']} | {m['n']} {m['p']} {m['q']} {m['r']} {m['t']} {m['e']} {m['m']}")
    rows.append((l["name"], lat, p[0], dram, p[4], glb, p[3]))
    for k, v in enumerate((lat, p[0], proc, p[1], glb, p[3], dram, p[4])):
        tot[k] += v
print(f"total | {tot[0]:.1f} ({tot[1]:.1f}) | {tot[2]:.1f} ({tot[3]:.1f}) | | {tot[4]:.1f} ({tot[5]:.1f}) | "
      f"{tot[6]:.2f} ({tot[7]:.1f}) | |")
print(f"MACs: {sum(l['macs'] for l in s['layers']):,}")
print("\ndataflow (memory ideal) | zero gating | pJ/MAC | MAC | reg (spads) | link | sram (GLB) | ms")
for gating in ("false", "true"):
  for df in ("rs", "ws", "os", "is"):
    rep = json.load(open(f"{out}/ideal-{df}-{gating}/report.json"))["total"]["energy"]
    sm = json.load(open(f"{out}/ideal-{df}-{gating}/summary.json"))
    macs = sum(l["macs"] for l in sm["layers"])
    by = {}
    for k, v in rep["E_marg_by_action"].items():
        by[k.split(".")[0]] = by.get(k.split(".")[0], 0) + v["value"]
    ms = sum(l["cycles"] for l in sm["layers"]) / clock * 1e3
    print(f"{df} | {gating} | {rep['E_marg']['value'] / macs * 1e12:.2f} | " +
          " | ".join(f"{by.get(g, 0) / macs * 1e12:.2f}" for g in ("mac", "reg", "link", "sram")) + f" | {ms:.1f}")
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(0)
plt.rcParams.update({"font.size": 8})
fig, axes = plt.subplots(1, 3, figsize=(7.2, 2.4))
x = range(len(rows))
blue, orange = "#0072B2", "#E69F00"  # Okabe-Ito, colour-blind safe
for ax, (i, j, title) in zip(axes, ((1, 2, "latency (ms)"), (3, 4, "DRAM (MB)"), (5, 6, "global buffer (MB)"))):
    ax.bar([k - 0.2 for k in x], [r[i] for r in rows], 0.4, label="cstsim", color=blue)
    ax.bar([k + 0.2 for k in x], [r[j] for r in rows], 0.4, label="Eyeriss, JSSC 2017 Table V", color=orange)
    ax.set_xticks(list(x))
    ax.set_xticklabels([str(k + 1) for k in x])
    ax.set_xlabel("CONV layer")
    ax.set_title(title)
handles, labels = axes[0].get_legend_handles_labels()
fig.legend(handles, labels, loc="lower center", ncol=2, frameon=False)
fig.suptitle("AlexNet CONV1-5, batch 4: eyeriss preset (rs, memory: channel 480 MB/s, RLC) vs the chip", fontsize=8)
fig.tight_layout(rect=(0, 0.08, 1, 0.95))
for ext in ("png", "pdf"):
    fig.savefig(f"{out}/eyeriss-alexnet.{ext}", dpi=200)
print(f"\nfigure: {out}/eyeriss-alexnet.png")
PY
