#!/usr/bin/python3
"""R(t) timeline of a cstsim run: one panel per resource class present (C, M, N, S),
each resource as a step line of its occupancy / capacity (0..1), layer boundaries as
thin vertical lines.

    /usr/bin/python3 traces/plot/plot_rt.py runs/r1 --out fig/rt     # fig/rt.png, fig/rt.pdf

Traces with more records than --max-points (20000) are drawn as exact per-bin time averages
(--bins bins) instead of steps, and the panel says so.
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


def main():
    ap = argparse.ArgumentParser(description="Plot R(t): occupancy/capacity per resource, one panel per class.")
    ap.add_argument("run_dir", help="run directory holding trace/")
    ap.add_argument("--out", required=True, metavar="PREFIX", help="writes PREFIX.png and PREFIX.pdf")
    ps.add_width_arg(ap, "double")
    ap.add_argument("--panel-height", type=float, default=0.9, help="inches per class panel (default 0.9)")
    ap.add_argument("--time-unit", choices=sorted(TIME_UNITS), default="us", help="x axis unit (default us)")
    ap.add_argument("--max-points", type=int, default=20000,
                    help="draw exact steps up to this many records, bin averages above (default 20000)")
    ap.add_argument("--bins", type=int, default=2000, help="bins of the averaged view (default 2000)")
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

    scale = TIME_UNITS[args.time_unit] * t.period_s  # x units per cycle
    binned = t.record_count > args.max_points
    if binned:
        edges, means = t.binned_means(args.bins)
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
                ys = [sum(col) / cap for col in zip(*(means[r["id"]] for r in family))]
                ax.stairs(ys, [e * scale for e in edges], baseline=None, **style)
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
        for layer in t.layers[1:]:
            ax.axvline(layer["start_cycle"] * scale, color="0.45", linewidth=0.4, zorder=0)
        if narrow:  # a single column: the legend goes above the panel, inside the figure
            ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=min(len(members), 2), handlelength=2.2,
                      borderaxespad=0.1, fontsize=5.5)
        else:
            ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), ncol=1 if len(members) <= 3 else 2,
                      handlelength=2.2, borderaxespad=0.0)
        ax.spines["top"].set_visible(False)
        ax.spines["right"].set_visible(False)
    axes[0].set_xlim(0, x_end if x_end > 0 else 1)
    axes[-1].set_xlabel("time (%s), clock %.4g MHz" % (TIME_LABEL[args.time_unit], t.clock_hz / 1e6))
    if not args.no_layer_names and not narrow and 0 < len(t.layers) <= 16:
        for layer in t.layers:
            mid = (layer["start_cycle"] + layer["end_cycle"] + 1) / 2 * scale
            axes[0].text(mid, 1.1, layer["name"], ha="center", va="bottom", fontsize=6,
                         clip_on=False, transform=axes[0].get_xaxis_transform())
    title = args.title
    if title is None and binned:
        title = "occupancy / capacity, mean per %.3g %s bin" % (
            (edges[1] - edges[0]) * scale, TIME_LABEL[args.time_unit])
    if title:
        fig.suptitle(title, fontsize=8)
    fig.align_ylabels(axes)
    fig.tight_layout(h_pad=0.3)
    for p in ps.save(fig, args.out):
        print(p)


if __name__ == "__main__":
    main()
