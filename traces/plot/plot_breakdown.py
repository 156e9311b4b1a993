#!/usr/bin/python3
"""A run's breakdowns, from <run-dir>/summary.json and report.json, each as PREFIX-<name>.png/.pdf:

  stalls       per step (layers and vector-unit kernels, in the order they ran): its own cycles and
               its stall cycles by root cause, stacked; the bars add up to the run
  utilization  per layer: MACs / (PEs x cycles), and the fraction of PEs its folds map
  energy       the run's energy by component (the first part of each action's name) and its
               largest actions, marginal and static
  traffic      per layer: bytes moved at each memory level (registers, SRAM, HBM, host)

Layers are named in full on the y axis (one row each), so long names stay readable."""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paperstyle as ps  # noqa: E402

plt = ps.plt

# Okabe-Ito, then greys: colour-blind safe, one per stall cause in a fixed order.
# (Blue is the ideal-memory bar's.)
CAUSE_COLORS = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#D55E00", "#CC79A7", "#000000", "#999999",
                "#666666", "#BBBBBB"]
OUTSIDE = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0)}  # legends right of the axes, never over bars


def value(x):
    return x["value"] if isinstance(x, dict) else x


def caption(summary):
    a = summary["arch"]
    return "%s: %dx%d %s, memory %s, %s; workload %s" % (
        a["name"], a["rows"], a["cols"], a["dataflow"], a["memory"], a.get("operand", ""), summary["workload"]["name"])


def layer_axes(summary, n, width):
    height = 0.9 + 0.16 * n
    fig, ax = ps.figure(width, height)
    ax.set_yticks(range(n))
    ax.set_yticklabels([l["name"] for l in summary["layers"]])
    ax.invert_yaxis()
    ax.grid(axis="x")
    return fig, ax


def stalls(summary, prefix, width):
    """Every step of the run in the order it ran, layers and vector-unit kernels: its own work (a
    layer's cycles with ideal memory, a kernel's compute cycles) and its stall cycles by cause,
    stacked. The bars add up to the run's cycles (the array and the vector unit take turns)."""
    steps = [(l.get("start_cycle", k), l["name"], "layer", l["ideal_cycles"], l.get("stalls", {}))
             for k, l in enumerate(summary["layers"])]
    steps += [(v.get("start_cycle", 0), v["name"], "vector", v["compute_cycles"], v.get("stalls", {}))
              for v in summary.get("vector", {}).get("kernels", [])]
    steps.sort(key=lambda s: s[0])
    causes = sorted({c for s in steps for c, v in s[4].items() if v > 0})
    total = sum(own + sum(st.values()) for _, _, _, own, st in steps)
    run_cycles = summary.get("total", {}).get("cycles")
    if run_cycles is not None and total != run_cycles:
        sys.exit("internal error: plot_breakdown.py: the steps' cycles add up to %d, the run's are %d" % (total, run_cycles))
    fig, ax = ps.figure(width, 0.9 + 0.16 * len(steps))
    ax.set_yticks(range(len(steps)))
    ax.set_yticklabels([s[1] for s in steps])
    ax.invert_yaxis()
    ax.grid(axis="x")
    y = range(len(steps))
    left = [s[3] for s in steps]
    kinds = {s[2] for s in steps}
    ax.barh(y, [s[3] if s[2] == "layer" else 0 for s in steps], color="#0072B2", label="array, with ideal memory")
    if "vector" in kinds:
        ax.barh(y, [s[3] if s[2] == "vector" else 0 for s in steps], color="#0072B2", hatch="////", edgecolor="white",
                linewidth=0, label="vector unit, computing")
    for i, c in enumerate(causes):
        v = [s[4].get(c, 0) for s in steps]
        ax.barh(y, v, left=left, color=CAUSE_COLORS[i % len(CAUSE_COLORS)], label="stall: " + c)
        left = [a + b for a, b in zip(left, v)]
    ax.set_xlabel("cycles")
    ax.legend(**OUTSIDE)
    ax.set_title("Cycles per step by stall cause (the bars add up to the run's %d cycles)\n%s" % (total, caption(summary)))
    return ps.save(fig, prefix + "-stalls")


def utilization(summary, prefix, width):
    layers = summary["layers"]
    fig, ax = layer_axes(summary, len(layers), width)
    y = range(len(layers))
    ax.barh([i - 0.2 for i in y], [100 * l["utilization"] for l in layers], height=0.4, color="#0072B2",
            label="utilization (MACs / PEs x cycles)")
    ax.barh([i + 0.2 for i in y], [100 * l["mapping_efficiency"] for l in layers], height=0.4, color="#E69F00",
            label="mapping efficiency (PEs the folds map)")
    ax.set_xlim(0, 100)
    ax.set_xlabel("%")
    ax.legend(**OUTSIDE)
    ax.set_title("Utilization per layer\n" + caption(summary))
    return ps.save(fig, prefix + "-utilization")


def energy(summary, report, prefix, width, top=12):
    """Bars that add up to E_gross: every marginal action, every background action, and the
    static power over the run (E_base less its background actions), which no action carries."""
    e = report["total"]["energy"]
    by_component = {}
    actions = []
    base_actions = 0.0
    for kind, table in (("marginal", e.get("E_marg_by_action", {})), ("static", e.get("E_base_by_action", {}))):
        for name, v in table.items():
            j = value(v)
            if kind == "static":
                base_actions += j
            if j <= 0:
                continue
            parts = name.split(".")
            component = parts[1] if parts[0].startswith("chip") and len(parts) > 1 else parts[0]
            by_component[component] = by_component.get(component, 0) + j
            actions.append((j, name + (" (background)" if kind == "static" else "")))
    static = value(e["E_base"]) - base_actions
    if static > 0:
        by_component["static power"] = static
        actions.append((static, "static power x run time"))
    gross = value(e["E_gross"])
    total = sum(by_component.values())
    if abs(total - gross) > 1e-6 * max(gross, 1e-30):
        sys.exit("internal error: plot_breakdown.py: the energy bars add up to %.6g J, E_gross is %.6g J" % (total, gross))
    actions.sort(reverse=True)
    actions = actions[:top]
    comps = sorted(by_component.items(), key=lambda kv: -kv[1])
    f, unit = scale(gross, "J")
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(width, 0.9 + 0.17 * max(len(comps), len(actions))))
    a1.barh(range(len(comps)), [v / f for _, v in comps], color="#0072B2")
    a1.set_yticks(range(len(comps)))
    a1.set_yticklabels([c for c, _ in comps])
    a1.invert_yaxis()
    a1.set_xlabel(unit)
    a1.set_title("by component (the bars add up to E_gross)")
    a2.barh(range(len(actions)), [v / f for v, _ in actions], color="#E69F00")
    a2.set_yticks(range(len(actions)))
    a2.set_yticklabels([n for _, n in actions])
    a2.invert_yaxis()
    a2.set_xlabel(unit)
    a2.set_title("largest %d actions" % len(actions))
    fig.suptitle("Energy: E_gross %s = marginal %s + static %s (%s)\n%s" % (
        ps.si(gross, "J"), ps.si(value(e["E_marg"]), "J"), ps.si(value(e["E_base"]), "J"),
        report.get("energy_table", {}).get("name", ""), caption(summary)))
    fig.tight_layout()
    return ps.save(fig, prefix + "-energy")


def scale(top, unit):
    """(factor, label): an SI prefix that puts `top` in [1, 1000) (J -> mJ, B -> MB)."""
    for f, p in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n"),
                 (1e-12, "p")):
        if top >= f * 0.9995:
            return f, p + unit
    return 1.0, unit


def traffic(summary, report, prefix, width):
    """Per layer, the bytes each memory level moved, stacked on a linear axis (registers, SRAM,
    HBM, host): a bar's length is the layer's traffic and each part its level's share."""
    layers = report["layers"]
    levels = ["reg", "sram", "hbm", "host"]
    present = [lv for lv in levels if any(value(l["C_P"]["B_M"].get(lv, 0)) > 0 for l in layers)]
    fig, ax = ps.figure(width, 0.9 + 0.16 * len(layers))
    colors = {"reg": "#CC79A7", "sram": "#E69F00", "hbm": "#0072B2", "host": "#009E73"}
    names = {"reg": "PE registers", "sram": "SRAM", "hbm": "HBM / DRAM", "host": "host"}
    top = max([sum(value(l["C_P"]["B_M"].get(lv, 0)) for lv in present) for l in layers] + [1])
    f, unit = scale(top, "B")
    left = [0.0] * len(layers)
    for lv in present:
        v = [value(l["C_P"]["B_M"].get(lv, 0)) / f for l in layers]
        ax.barh(range(len(layers)), v, left=left, color=colors[lv], label=names[lv], height=0.7)
        left = [a + b for a, b in zip(left, v)]
    ax.set_yticks(range(len(layers)))
    ax.set_yticklabels([l["name"] for l in layers])
    ax.invert_yaxis()
    ax.set_xlabel("bytes moved (%s)" % unit)
    ax.legend(**OUTSIDE)
    ax.set_title("Traffic per memory level per layer\n" + caption(summary))
    return ps.save(fig, prefix + "-traffic")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_dir")
    ap.add_argument("--out", required=True, metavar="PREFIX", help="writes PREFIX-<figure>.png and .pdf")
    ps.add_width_arg(ap, "double")
    args = ap.parse_args()
    ps.setup()
    try:
        summary = json.load(open(os.path.join(args.run_dir, "summary.json")))
        report_path = os.path.join(args.run_dir, "report.json")
        report = json.load(open(report_path)) if os.path.exists(report_path) else None
    except (OSError, ValueError) as e:
        sys.exit("error: plot_breakdown.py: %s" % e)
    written = stalls(summary, args.out, args.width) + utilization(summary, args.out, args.width)
    if report:  # a run with --no-trace has no report
        written += energy(summary, report, args.out, args.width) + traffic(summary, report, args.out, args.width)
    for p in written:
        print(p)


if __name__ == "__main__":
    main()
