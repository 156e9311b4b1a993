#!/usr/bin/python3
"""Roofline of one or more cstsim runs from <run-dir>/report.json: log-log, the roof
min(peak, I * bandwidth), the ridge point, one marker per layer at (I_A, achieved op/s);
the --label layers with the longest time (or highest achieved op/s) are named.

    /usr/bin/python3 traces/plot/plot_roofline.py runs/ws runs/os --out fig/roofline

report.json fields read:
    machine.peak_ops_per_s.value   (op/s)
    machine.bandwidth.value        (byte/s)
    layers[i].name
    layers[i].roofline.I_A.value                 (op/byte)
    layers[i].roofline.achieved_ops_per_s.value  (op/s)
    layers[i].time_s, .cycles or .start_cycle/.end_cycle (optional: rank the layers to label)
A field may also be a bare number instead of {"value": ...}.
"""

import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paperstyle as ps  # noqa: E402
import plot_sweep_common as sc  # noqa: E402

MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">"]
COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]


def value(node, path):
    """report[path...]["value"] (or the bare number); raises KeyError naming the path."""
    cur = node
    for key in path:
        if not isinstance(cur, dict) or key not in cur:
            raise KeyError(".".join(path))
        cur = cur[key]
    if isinstance(cur, dict):
        if "value" not in cur:
            raise KeyError(".".join(path) + ".value")
        cur = cur["value"]
    if cur is None:
        return None
    return float(cur)


def layers_of(report):
    layers = report.get("layers")
    if isinstance(layers, list):
        return layers
    raise KeyError("layers")


def load(run_dir):
    path = run_dir if run_dir.endswith(".json") else os.path.join(run_dir, "report.json")
    with open(path) as f:
        report = json.load(f)
    try:
        peak = value(report, ["machine", "peak_ops_per_s"])
        bw = value(report, ["machine", "bandwidth"])
        points = []
        for i, layer in enumerate(layers_of(report)):
            name = str(layer.get("name", "layer %d" % i))
            ia = value(layer, ["roofline", "I_A"])
            perf = value(layer, ["roofline", "achieved_ops_per_s"])
            weight = None  # the layer's duration, to rank the layers to label
            try:
                if "time_s" in layer:
                    weight = value(layer, ["time_s"])
                elif "cycles" in layer:
                    weight = value(layer, ["cycles"])
                elif "start_cycle" in layer and "end_cycle" in layer:
                    weight = value(layer, ["end_cycle"]) - value(layer, ["start_cycle"]) + 1
            except (KeyError, TypeError, ValueError):
                weight = None
            points.append({"name": name, "I": ia, "perf": perf, "weight": weight})
    except KeyError as e:
        raise ValueError("%s: missing %s" % (path, e.args[0]))
    if not (peak and peak > 0 and bw and bw > 0):
        raise ValueError("%s: machine peak and bandwidth must be positive" % path)
    return {"path": path, "peak": peak, "bw": bw, "points": points}


def _span(lo, hi, decades=2.0):
    """(lo, hi) widened around its log-centre to at least `decades` decades."""
    if hi / lo < 10 ** decades:
        mid = math.sqrt(lo * hi)
        lo, hi = mid / 10 ** (decades / 2), mid * 10 ** (decades / 2)
    return lo, hi


def main():
    ap = argparse.ArgumentParser(description="Roofline plot of the layers of one or more cstsim runs.")
    ap.add_argument("run_dirs", nargs="+", help="run directories holding report.json (or report.json files)")
    ap.add_argument("--out", required=True, metavar="PREFIX", help="writes PREFIX.png and PREFIX.pdf")
    ap.add_argument("--names", default=None, help="comma-separated legend names of the runs (default: dir names)")
    ap.add_argument("--label", type=int, default=4, help="name the N largest layers of each run (default 4)")
    ps.add_width_arg(ap, "single")
    ap.add_argument("--height", type=float, default=2.4, help="figure height, inches (default 2.4)")
    ap.add_argument("--title", default=None)
    args = ap.parse_args()

    runs = []
    for d in args.run_dirs:
        try:
            runs.append(load(d))
        except (OSError, ValueError) as e:
            sys.exit("error: plot_roofline: %s" % e)
    names = args.names.split(",") if args.names else [
        os.path.basename(os.path.normpath(os.path.dirname(r["path"]) or ".")) for r in runs]
    if len(names) != len(runs):
        sys.exit("error: plot_roofline: --names has %d names for %d runs" % (len(names), len(runs)))

    # Axis ranges: every point, ridge and peak with some margin, at least two decades each.
    xs = [p["I"] for r in runs for p in r["points"] if p["I"] and p["I"] > 0]
    ys = [p["perf"] for r in runs for p in r["points"] if p["perf"] and p["perf"] > 0]
    ridges = [r["peak"] / r["bw"] for r in runs]
    x_lo, x_hi = _span(min(xs + ridges) / 4, max(xs + ridges) * 8)
    roof_at_lo = min(x_lo * r["bw"] for r in runs)
    y_lo, y_hi = _span(min(ys + [roof_at_lo]) / 3, max(r["peak"] for r in runs) * 4)

    ps.setup()
    fig, ax = ps.figure(args.width, args.height)
    ax.set_xscale("log")
    ax.set_yscale("log")
    drawn_roofs = []
    named = []  # ([(I, perf, layer)], colour) per run: placed once the layout is final
    bw_labels = []  # (bandwidth, colour): drawn once the layout is fixed
    peak_labels = set()
    skipped = 0
    for k, (r, name) in enumerate(zip(runs, names)):
        color = COLORS[k % len(COLORS)]
        roof_key = (r["peak"], r["bw"])
        ridge = r["peak"] / r["bw"]
        if roof_key not in drawn_roofs:
            drawn_roofs.append(roof_key)
            roof_color = "black" if len(runs) == 1 else color
            ax.plot([x_lo, ridge, x_hi], [x_lo * r["bw"], r["peak"], r["peak"]], color=roof_color, linewidth=1.0,
                    zorder=2)
            # The ridge: a dotted drop line to the x axis.
            ax.plot([ridge, ridge], [y_lo, r["peak"]], color=roof_color, linewidth=0.5, linestyle=":", zorder=1)
            ax.plot([ridge], [r["peak"]], marker="o", markersize=3.5, markerfacecolor="white",
                    markeredgecolor=roof_color, zorder=3)
            # Above the roof, left of the ridge: no layer is ever plotted above a roof.
            ax.text(ridge / 1.1, r["peak"] * 1.25, "ridge %.3g op/B" % ridge, ha="right", va="bottom",
                    fontsize=7, color=roof_color)
            if r["peak"] not in peak_labels:
                peak_labels.add(r["peak"])
                ax.text(x_hi / 1.3, r["peak"] * 1.25, "peak " + ps.si(r["peak"], "op/s"), ha="right",
                        va="bottom", fontsize=6, color=roof_color)
            bw_labels.append((r["bw"], roof_color))
        pts = [p for p in r["points"] if p["I"] and p["I"] > 0 and p["perf"] and p["perf"] > 0]
        skipped += len(r["points"]) - len(pts)
        ax.scatter([p["I"] for p in pts], [p["perf"] for p in pts], s=10, marker=MARKERS[k % len(MARKERS)],
                   facecolors="none" if k % 2 else color, edgecolors=color, linewidths=0.7, zorder=4,
                   label=name if len(runs) > 1 else None)
        rank = sorted(pts, key=lambda p: -(p["weight"] if p["weight"] is not None else p["perf"]))
        named.append(([(p["I"], p["perf"], p["name"]) for p in rank[:max(0, args.label)]], color))
    if skipped:
        print("plot_roofline: %d layer(s) without a positive I_A or achieved op/s not drawn" % skipped,
              file=sys.stderr)
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)
    ax.set_xlabel("arithmetic intensity $I_A$ (op/byte)")
    ax.set_ylabel("performance (op/s)")
    ax.grid(True, which="major")
    if len(runs) > 1:
        ax.legend(loc="lower right")
    if args.title:
        ax.set_title(args.title)
    fig.tight_layout()
    for bw, color in bw_labels:  # along the slanted roof, at the angle it is drawn
        x0 = x_lo * 2.0
        p0, p1 = ax.transData.transform([(x0, x0 * bw), (x0 * 10, x0 * 10 * bw)])
        angle = math.degrees(math.atan2(p1[1] - p0[1], p1[0] - p0[0]))
        if x0 * bw > y_lo:
            ax.text(x0, x0 * bw * 1.25, ps.si(bw, "B/s"), rotation=angle, rotation_mode="anchor", fontsize=6,
                    color=color, ha="left", va="bottom")
    # A peak label that meets a ridge label goes under its roof instead.
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ridges = [t for t in ax.texts if t.get_text().startswith("ridge ")]
    for t in [t for t in ax.texts if t.get_text().startswith("peak ")]:
        if any(t.get_window_extent(renderer).overlaps(r.get_window_extent(renderer)) for r in ridges):
            x, y = t.get_position()
            t.set_position((x, y / 1.25 / 1.25))
            t.set_va("top")
    left_out = sum(sc.place_labels(ax, pts, color=color) for pts, color in named)
    if left_out:
        print("plot_roofline: %d layer label(s) left out: no free spot beside the point" % left_out, file=sys.stderr)
    for p in ps.save(fig, args.out):
        print(p)


if __name__ == "__main__":
    main()
