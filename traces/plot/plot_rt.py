#!/usr/bin/python3
"""R(t) timeline of a cstsim run: one panel per resource class present (C, M, N, S),
each resource as a step line of its occupancy / capacity (0..1), layer boundaries as
thin vertical lines.

    /usr/bin/python3 traces/plot/plot_rt.py runs/r1 --out fig/rt     # fig/rt.png, fig/rt.pdf

Traces with more records than --max-points (20000) are drawn as exact per-bin time averages
(--bins bins) instead of steps, and the panel says so.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cstsim_trace as ct  # noqa: E402
import paperstyle as ps  # noqa: E402

TIME_UNITS = {"ns": 1e9, "us": 1e6, "ms": 1e3, "s": 1.0}
TIME_LABEL = {"ns": "ns", "us": "µs", "ms": "ms", "s": "s"}
LINESTYLES = ["-", "--", ":", "-."]


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
        members = [r for r in t.resources if r["class"] == cls]
        base = ps.CLASS_COLORS[cls]
        for k, r in enumerate(members):
            cap = float(r["capacity"])
            style = dict(color=base, linestyle=LINESTYLES[k % len(LINESTYLES)],
                         alpha=1.0 if k < len(LINESTYLES) else 0.6, label=r["name"])
            if binned:
                ys = [m / cap for m in means[r["id"]]]
                ax.stairs(ys, [e * scale for e in edges], baseline=None, **style)
            else:
                cs, vs = series[r["id"]]
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
