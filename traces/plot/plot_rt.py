#!/usr/bin/python3
"""R(t) timeline of a cstsim run: one panel per resource class present (C, M, N, S),
each resource as a step line of its occupancy / capacity (0..1), layer boundaries as
thin vertical lines.

    /usr/bin/python3 traces/plot/plot_rt.py runs/r1 --out fig/rt     # fig/rt.png, fig/rt.pdf

Traces with more records than --max-points (20000) are drawn binned by pixel: the exact time
average of each bin as a line and the highest value held in it as a light band above, so a
spike shorter than a pixel stays visible. --layer and --window zoom in (the bins then span the
zoomed stretch only); layers are shaded in alternate bands and named where a name fits over its
band without overprinting another (the longest layers first).
"""

import argparse
import re
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cstsim_trace as ct  # noqa: E402
import paperstyle as ps  # noqa: E402

TIME_UNITS = {"ns": 1e9, "us": 1e6, "ms": 1e3, "s": 1.0}
TIME_LABEL = {"ns": "ns", "us": "µs", "ms": "ms", "s": "s"}
LINESTYLES = ["-", "--", ":", "-."]


def groups_of(members, per_resource):
    """[(label, [resources])]: numbered families (3 or more) merged unless per_resource."""
    if per_resource:
        return [(r["name"], [r]) for r in members]
    families = {}
    for r in members:
        families.setdefault(re.sub(r"\d+", "*", r["name"]), []).append(r)
    out = []
    for r in members:
        key = re.sub(r"\d+", "*", r["name"])
        family = families[key]
        if len(family) < 3:
            out.append((r["name"], [r]))
        elif family[0] is r:
            out.append(("%s (%d)" % (key, len(family)), family))
    return out


def summed_steps(series, family):
    """Sum of several step series: (cycles, values) with a point wherever any member changes."""
    events = sorted((c, i, v) for i, r in enumerate(family) for c, v in zip(*series[r["id"]]))
    current, total, cs, vs = [0] * len(family), 0, [], []
    for c, i, v in events:
        total += v - current[i]
        current[i] = v
        if cs and cs[-1] == c:
            vs[-1] = total
        else:
            cs.append(c)
            vs.append(total)
    return cs, vs


def zoom(t, window, layer):
    """[start, stop) cycles to draw: the whole run, a --window FROM:TO, or a --layer's span."""
    start, stop = 0, max(t.end_cycle, 1)
    if window is not None and layer is not None:
        sys.exit("error: plot_rt: --window and --layer: give one")
    if layer is not None:
        picked = [l for l in t.layers if l["name"] == layer]
        if not picked and layer.isdigit():
            picked = [l for l in t.layers if l["layer"] == int(layer)]
        if not picked:
            sys.exit("error: plot_rt: --layer %r: no such layer (names as in layers.csv, or an index)" % layer)
        start, stop = picked[0]["start_cycle"], picked[0]["end_cycle"] + 1
    if window is not None:
        a, sep, b = window.partition(":")
        try:
            start = int(a) if a.strip() else start
            stop = int(b) if b.strip() else stop
        except ValueError:
            sep = ""
        if not sep or not 0 <= start < stop:
            sys.exit("error: plot_rt: --window %r: expected FROM:TO cycles with 0 <= FROM < TO" % window)
    return start, stop


def main():
    ap = argparse.ArgumentParser(description="Plot R(t): occupancy/capacity per resource, one panel per class.")
    ap.add_argument("run_dir", help="run directory holding trace/")
    ap.add_argument("--out", required=True, metavar="PREFIX", help="writes PREFIX.png and PREFIX.pdf")
    ps.add_width_arg(ap, "double")
    ap.add_argument("--panel-height", type=float, default=0.9, help="inches per class panel (default 0.9)")
    ap.add_argument("--time-unit", choices=sorted(TIME_UNITS), default="us", help="x axis unit (default us)")
    ap.add_argument("--max-points", type=int, default=20000,
                    help="draw exact steps up to this many records, bin averages above (default 20000)")
    ap.add_argument("--bins", type=int, default=None,
                    help="bins of the averaged view (default 60 per inch of width: one per 5 pixels at 300 dpi)")
    ap.add_argument("--window", metavar="FROM:TO", default=None,
                    help="zoom to cycles [FROM, TO) (either side may be empty: the run's start or end)")
    ap.add_argument("--layer", metavar="NAME|INDEX", default=None,
                    help="zoom to one layer's cycles (its full name as in layers.csv, or its index)")
    ap.add_argument("--no-layer-names", action="store_true", help="omit layer names above the first panel")
    ap.add_argument("--title", default=None)
    ap.add_argument("--per-resource", action="store_true",
                    help="one line per resource; by default resources whose names differ only in a number "
                         "(hbm.ch00.busy, hbm.ch01.busy, ...) are drawn as one line, sum / sum of capacities")
    args = ap.parse_args()

    try:
        t = ct.Trace(args.run_dir)
    except (OSError, ValueError) as e:
        sys.exit("error: plot_rt: %s" % e)
    classes = [c for c in "CMNS" if any(r["class"] == c for r in t.resources)]
    if not classes:
        sys.exit("error: plot_rt: %s declares no resources" % t.dir)

    start, stop = zoom(t, args.window, args.layer)
    scale = TIME_UNITS[args.time_unit] * t.period_s  # x units per cycle
    binned = t.record_count > args.max_points
    if binned:
        edges, means, peaks = t.binned(args.bins or int(args.width * 60), None, start, stop)
    else:
        series = t.step_series()

    narrow = args.width < 5
    ps.setup()
    fig, axes = ps.figure(args.width, (args.panel_height + (0.25 if narrow else 0)) * len(classes) + 0.45,
                          nrows=len(classes), sharex=True, squeeze=False)
    axes = [a[0] for a in axes]
    x_end = t.end_cycle * scale
    for ax, cls in zip(axes, classes):
        members = groups_of([r for r in t.resources if r["class"] == cls], args.per_resource)
        base = ps.CLASS_COLORS[cls]
        for k, (label, family) in enumerate(members):
            cap = float(sum(r["capacity"] for r in family))
            style = dict(color=base, linestyle=LINESTYLES[k % len(LINESTYLES)],
                         alpha=1.0 if k < len(LINESTYLES) else 0.6, label=label)
            if binned:
                xs = [e * scale for e in edges]
                ys = [sum(col) / cap for col in zip(*(means[r["id"]] for r in family))]
                tops = [sum(col) / cap for col in zip(*(peaks[r["id"]] for r in family))]
                ax.stairs(tops, xs, baseline=ys, fill=True, color=base, alpha=0.18, linewidth=0)
                ax.stairs(ys, xs, baseline=None, **style)
            else:
                cs, vs = summed_steps(series, family) if len(family) > 1 else series[family[0]["id"]]
                ax.step([c * scale for c in cs], [v / cap for v in vs], where="post", **style)
        ax.set_ylim(-0.04, 1.08)
        ax.set_yticks([0, 0.5, 1])
        if narrow:
            ax.set_ylabel(cls, rotation=0, ha="right", va="center")
        else:
            ax.set_ylabel("%s\n%s" % (cls, ct.CLASS_NAMES[cls]), rotation=0, ha="right", va="center")
        ax.grid(True, axis="y")
        for k, layer in enumerate(t.layers):  # alternate bands: a boundary stays readable at any zoom
            if k % 2 == 1:
                ax.axvspan(layer["start_cycle"] * scale, (layer["end_cycle"] + 1) * scale, color="0.93", zorder=0,
                           linewidth=0)
        if narrow:  # a single column: the legend goes above the panel, inside the figure
            ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=min(len(members), 2), handlelength=2.2,
                      borderaxespad=0.1)
        else:
            ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), ncol=1 if len(members) <= 3 else 2,
                      handlelength=2.2, borderaxespad=0.0)
        ax.spines["top"].set_visible(False)
        ax.spines["right"].set_visible(False)
    axes[0].set_xlim(start * scale, stop * scale if stop > start else 1)
    axes[-1].set_xlabel("time (%s), clock %.4g MHz" % (TIME_LABEL[args.time_unit], t.clock_hz / 1e6))
    in_view = [l for l in t.layers if l["end_cycle"] >= start and l["start_cycle"] < stop]
    title = args.title
    if title is None and binned:
        title = "occupancy / capacity: mean per %.3g %s bin (line), highest held (band)" % (
            (edges[1] - edges[0]) * scale, TIME_LABEL[args.time_unit])
    if title:
        fig.suptitle(title, fontsize=8)
    fig.align_ylabels(axes)
    fig.tight_layout(h_pad=0.3)
    if not args.no_layer_names and not narrow and in_view:
        # Longest layers first, each name centred over its band if it overprints no name placed
        # before it and is at most twice as wide as its band (else it would name its neighbours).
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        placed, left_out = [], 0
        for layer in sorted(in_view, key=lambda l: -(l["end_cycle"] - l["start_cycle"])):
            lo, hi = max(layer["start_cycle"], start) * scale, min(layer["end_cycle"] + 1, stop) * scale
            text = axes[0].text((lo + hi) / 2, 1.1, layer["name"], ha="center", va="bottom", fontsize=7,
                                clip_on=False, transform=axes[0].get_xaxis_transform())
            box = text.get_window_extent(renderer)
            band = abs(axes[0].transData.transform((hi, 0))[0] - axes[0].transData.transform((lo, 0))[0])
            if box.width > 2 * band or any(box.overlaps(b) for b in placed):
                text.remove()
                left_out += 1
            else:
                placed.append(box)
        if left_out:
            print("plot_rt: %d of %d layer names left out (no room above their layers; --layer zooms in)"
                  % (left_out, len(in_view)))
    for p in ps.save(fig, args.out):
        print(p)


if __name__ == "__main__":
    main()
