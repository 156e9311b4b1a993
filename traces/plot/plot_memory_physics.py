#!/usr/bin/python3
"""Figures of the memory-physics studies (configs/studies/memory-physics/): one per sweep.

    plot_memory_physics.py channels SWEEP_DIR --out PREFIX   # decode-GEMV cycles vs HBM channels
    plot_memory_physics.py noc SWEEP_DIR --out PREFIX        # GEMM 1024^3 vs VCs, flit width, VC reuse
    plot_memory_physics.py refresh SWEEP_DIR --out PREFIX    # cycles and energy vs refresh policy
    plot_memory_physics.py prefetch SWEEP_DIR --out PREFIX   # cycles and stalls, overlap none / prefetch / pipeline
    plot_memory_physics.py prefetch-layers SWEEP_DIR --out PREFIX  # ResNet-50's cycles saved, layer by layer

Each reads SWEEP_DIR/results.csv (cstsim sweep ... --out SWEEP_DIR) and writes PREFIX.png and
PREFIX.pdf. Bounds drawn on the channel plot come from the run itself: ideal_cycles (the same plan
with ideal memory) and HBM bytes / (channels x the stack's peak per channel).
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paperstyle  # noqa: E402
import plot_sweep_common as sc  # noqa: E402

STALLS = ["hbm_bandwidth", "hbm_latency", "hbm_row_miss", "hbm_refresh", "noc_bandwidth", "noc_latency",
          "dma_issue", "spad_ports", "dependency"]


def num(row, key):
    v = sc.number(row.get(key, ""))
    if v is None:
        sys.exit("error: results.csv: column %s missing or empty in point %s" % (key, row.get("index")))
    return v


def plot_channels(res, prefix, width):
    rows = sorted(res.select([]), key=lambda r: num(r, "hbm.organization.channels"))
    ch = [num(r, "hbm.organization.channels") for r in rows]
    cycles = [num(r, "cycles") for r in rows]
    ideal = [num(r, "ideal_cycles") for r in rows]
    clock = [num(r, "arch.clock_hz") for r in rows]
    # The stack's peak scales with its channels; per channel from the 16-channel point's column.
    hbm = [num(r, "arch.hbm.peak_bytes_per_s") / c for r, c in zip(rows, clock)]  # bytes per cycle
    bytes_moved = [num(r, "dram_bytes") for r in rows]
    bound = [b / p for b, p in zip(bytes_moved, hbm)]
    fig, (ax, bx) = paperstyle.figure(width, 2.3, ncols=2)
    ax.plot(ch, cycles, "o-", color="#0072B2", label="simulated")
    ax.plot(ch, ideal, "--", color="#009E73", label="ideal memory (array binds)")
    ax.plot(ch, bound, ":", color="#E69F00", label="HBM bytes read / peak")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(ch)
    ax.set_xticklabels([str(int(c)) for c in ch])
    ax.set_xlabel("HBM3 channels")
    ax.set_ylabel("cycles")
    ax.legend(loc="lower left")
    ax.grid(True, which="both")
    bottom = [0.0] * len(rows)
    for cause in STALLS:
        v = [num(r, "stalls." + cause) for r in rows]
        if not any(v):
            continue
        bx.bar(range(len(rows)), v, bottom=bottom, label=cause)
        bottom = [b + x for b, x in zip(bottom, v)]
    bx.set_xticks(range(len(rows)))
    bx.set_xticklabels([str(int(c)) for c in ch])
    bx.set_yscale("symlog", linthresh=1000)
    bx.set_xlabel("HBM3 channels")
    bx.set_ylabel("stall cycles (cycles - ideal)")
    bx.legend(loc="upper right")
    return paperstyle.save(fig, prefix)


def plot_noc(res, prefix, width):
    rows = res.select([])
    flits = sorted({num(r, "noc.flit_bytes") for r in rows})
    fig, ax = paperstyle.figure(width, 2.3)
    ideal = num(rows[0], "ideal_cycles")
    styles = {"after_tail": "-", "atomic": "--"}
    colors = {1: "#0072B2", 2: "#E69F00", 4: "#009E73"}
    for reuse in ("after_tail", "atomic"):
        for vcs in sorted({int(num(r, "noc.vcs_per_vnet")) for r in rows}):
            pts = sorted((num(r, "noc.flit_bytes"), num(r, "cycles")) for r in rows
                         if r["noc.vc_reuse"] == reuse and int(num(r, "noc.vcs_per_vnet")) == vcs)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], styles[reuse], marker="o", ms=2.5,
                    color=colors.get(vcs, "k"), label="%d VC%s, %s" % (vcs, "s" if vcs > 1 else "", reuse))
    ax.axhline(ideal, color="grey", lw=0.6, ls=":", label="ideal memory")
    ax.set_xscale("log", base=2)
    ax.set_xticks(flits)
    ax.set_xticklabels([str(int(f)) for f in flits])
    ax.set_xlabel("flit width (bytes)")
    ax.set_ylabel("cycles, GEMM 1024$^3$")
    ax.grid(True)
    ax.legend(ncol=2)
    return paperstyle.save(fig, prefix)


def plot_refresh(res, prefix, width):
    rows = res.select([])
    policies = ["none", "per_bank", "all_bank"]
    groups = sorted({(r["workload"], int(num(r, "hbm.organization.channels"))) for r in rows})
    fig, (ax, bx) = paperstyle.figure(width, 2.3, ncols=2)
    w = 0.8 / len(policies)
    for k, pol in enumerate(policies):
        cyc, en = [], []
        for g in groups:
            r = [x for x in rows if x["workload"] == g[0] and int(num(x, "hbm.organization.channels")) == g[1]
                 and x["hbm.controller.refresh"] == pol]
            base = [x for x in rows if x["workload"] == g[0] and int(num(x, "hbm.organization.channels")) == g[1]
                    and x["hbm.controller.refresh"] == "none"]
            cyc.append(num(r[0], "cycles") / num(base[0], "cycles"))
            en.append(num(r[0], "energy.E_gross") / num(base[0], "energy.E_gross"))
        xs = [i + (k - 1) * w for i in range(len(groups))]
        ax.bar(xs, cyc, w, label=pol)
        bx.bar(xs, en, w, label=pol)
    short = {"decode-gemv": "GEMV", "gemm-1024": "GEMM"}
    labels = ["%s\n%d ch" % (short.get(g[0], g[0]), g[1]) for g in groups]
    for a, what in ((ax, "cycles"), (bx, "energy $E_\\mathrm{gross}$")):
        a.set_xticks(range(len(groups)))
        a.set_xticklabels(labels)
        a.set_ylabel(what + " / refresh none")
        a.set_ylim(0.95, None)
        a.grid(True, axis="y")
    ax.legend()
    return paperstyle.save(fig, prefix)


def plot_prefetch(res, prefix, width):
    rows = res.select([])
    workloads = sorted({r["workload"] for r in rows}, key=lambda w: [r["workload"] for r in rows].index(w))

    def point(w, overlap):
        r = [x for x in rows if x["workload"] == w and x["overlap"] == overlap]
        if not r:
            sys.exit("error: results.csv: no point for workload %s, overlap %s" % (w, overlap))
        return r[0]

    overlaps = [o for o in ("prefetch", "pipeline") if any(r["overlap"] == o for r in rows)]
    color = {"none": "#0072B2", "prefetch": "#E69F00", "pipeline": "#009E73"}
    fig, (ax, bx) = paperstyle.figure(width, 2.3, ncols=2)
    w = 0.8 / len(overlaps)
    lowest = 1.0
    for k, overlap in enumerate(overlaps):
        rel = [num(point(x, overlap), "cycles") / num(point(x, "none"), "cycles") for x in workloads]
        at = [i + (k - (len(overlaps) - 1) / 2) * w for i in range(len(workloads))]
        ax.bar(at, rel, w, label=overlap, color=color[overlap])
        for x, v in zip(at, rel):
            ax.annotate("%+.1f" % ((v - 1) * 100), (x, v), ha="center", va="bottom", fontsize=5)
        lowest = min(lowest, min(rel))
    ax.set_ylabel("cycles / overlap: none")
    ax.set_ylim(lowest - 0.02, 1.015)
    ax.legend()
    w = 0.8 / (len(overlaps) + 1)
    for k, overlap in enumerate(["none"] + overlaps):
        stall = [num(point(x, overlap), "cycles") - num(point(x, overlap), "ideal_cycles") for x in workloads]
        bx.bar([i + (k - len(overlaps) / 2) * w for i in range(len(workloads))], stall, w, label=overlap,
               color=color[overlap])
    bx.set_ylabel("stall cycles")
    bx.legend()
    for a in (ax, bx):
        a.set_xticks(range(len(workloads)))
        a.set_xticklabels(workloads, rotation=30, ha="right")
        a.grid(True, axis="y")
    return paperstyle.save(fig, prefix)


def plot_prefetch_layers(res, prefix, width, workload="resnet50"):
    """Per layer of one workload: the cycles prefetch and pipeline save against none, from each
    point's summary.json (a layer's window ends when its prefetched reads are in, so a saving
    can show in the layer after, and a layer can lose a little)."""
    rows = [r for r in res.select([]) if r["workload"] == workload]
    base = os.path.dirname(os.path.abspath(res.path))

    def layers(overlap):
        r = [x for x in rows if x["overlap"] == overlap]
        if not r:
            sys.exit("error: results.csv: no point for workload %s, overlap %s" % (workload, overlap))
        path = os.path.join(base, "points", r[0]["index"], "summary.json")
        if not os.path.exists(path):
            sys.exit("error: %s: missing (the sweep kept no point files?)" % path)
        with open(path) as f:
            return json.load(f)["layers"]

    none = layers("none")
    color = {"prefetch": "#E69F00", "pipeline": "#009E73"}
    fig, ax = paperstyle.figure(width, 2.0)
    overlaps = [o for o in ("prefetch", "pipeline") if any(r["overlap"] == o for r in rows)]
    w = 0.8 / len(overlaps)
    for k, overlap in enumerate(overlaps):
        other = layers(overlap)
        saved = [a["cycles"] - b["cycles"] for a, b in zip(none, other)]
        ax.bar([i + (k - (len(overlaps) - 1) / 2) * w for i in range(len(none))], saved, w,
               color=color[overlap], label="%s: %d cycles saved in all" % (overlap, sum(saved)))
    ax.axhline(0, color="black", linewidth=0.5)
    ax.set_xlabel("%s layer" % workload)
    ax.set_ylabel("cycles saved against none")
    ax.set_xlim(-1, len(none))
    ax.legend()
    ax.grid(True, axis="y")
    return paperstyle.save(fig, prefix)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("study", choices=["channels", "noc", "refresh", "prefetch", "prefetch-layers"])
    ap.add_argument("sweep", help="sweep directory or its results.csv")
    ap.add_argument("--out", required=True, help="output prefix (writes PREFIX.png and PREFIX.pdf)")
    paperstyle.add_width_arg(ap, "double")
    a = ap.parse_args()
    paperstyle.setup()
    res = sc.Results(a.sweep)
    if not res.select([]):
        sys.exit("error: %s: no finished points" % a.sweep)
    paths = {"channels": plot_channels, "noc": plot_noc, "refresh": plot_refresh,
             "prefetch": plot_prefetch, "prefetch-layers": plot_prefetch_layers}[a.study](res, a.out, a.width)
    print("\n".join(paths))


if __name__ == "__main__":
    main()
