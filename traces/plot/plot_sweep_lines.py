#!/usr/bin/python3
"""Line plots of a sweep: metrics (rows of panels: cycles and energy by default) against one swept
numeric parameter (--x, default the first one with several values: e.g. the array's PEs), one line
per value of another (--lines, default dataflow when swept), one column of panels per value of a
third (--facet, default the workload when several). Reads results.csv (or the sweep directory);
points that did not finish are left out. Writes PREFIX.png and PREFIX.pdf."""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paperstyle as ps  # noqa: E402
import plot_sweep_common as sc  # noqa: E402

plt = ps.plt
COLORS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def swept(res, rows, col):
    return sc.sort_values({r.get(col, "") for r in rows})


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", help="results.csv or the sweep directory")
    ap.add_argument("--x", default=None, help="numeric column on the x axis (default: pes if swept, else the first "
                                              "swept numeric parameter)")
    ap.add_argument("--lines", default=None, help="one line per value of this column (default dataflow if swept)")
    ap.add_argument("--facet", default=None, help="one column of panels per value (default workload if several)")
    ap.add_argument("--metric", default="cycles,energy", help="comma-separated metrics, one row of panels each")
    ap.add_argument("--out", required=True, metavar="PREFIX")
    ps.add_width_arg(ap, "double")
    args = ap.parse_args()
    ps.setup()
    try:
        res = sc.Results(args.results)
        rows = res.select()
        if not rows:
            raise ValueError("%s: no finished point" % res.path)
        numeric = [c for c in ["arch.pes"] + res.params
                   if c in res.columns and len(swept(res, rows, c)) > 1
                   and all(sc.number(r.get(c)) is not None for r in rows)]
        x = res.column(args.x) if args.x else (numeric[0] if numeric else None)
        if x is None:
            raise ValueError("%s: no numeric parameter takes several values (give --x)" % res.path)
        lines = res.column(args.lines) if args.lines else (
            "dataflow" if "dataflow" in res.columns and len(swept(res, rows, "dataflow")) > 1 else None)
        facet = res.column(args.facet) if args.facet else (
            "workload" if "workload" in res.columns and len(swept(res, rows, "workload")) > 1 else None)
        metrics = [res.column(m.strip()) for m in args.metric.split(",") if m.strip()]
    except (OSError, ValueError) as e:
        sys.exit("error: plot_sweep_lines.py: %s" % e)
    facets = swept(res, rows, facet) if facet else [None]
    groups = swept(res, rows, lines) if lines else [None]
    fig, axes = plt.subplots(len(metrics), len(facets), figsize=(args.width, 1.5 * len(metrics) + 0.6),
                             squeeze=False, sharex=True)
    for j, fv in enumerate(facets):
        for i, m in enumerate(metrics):
            ax = axes[i][j]
            for g, gv in enumerate(groups):
                pts = {}
                for r in rows:
                    if (facet and r.get(facet) != fv) or (lines and r.get(lines) != gv):
                        continue
                    xv, yv = sc.number(r.get(x)), sc.number(r.get(m))
                    if xv is not None and yv is not None:
                        pts.setdefault(xv, []).append(yv)
                if not pts:
                    continue
                xs = sorted(pts)
                # Several points at one x (other parameters swept too): their mean, with their range.
                ys = [sum(pts[v]) / len(pts[v]) for v in xs]
                ax.plot(xs, ys, marker=MARKERS[g % len(MARKERS)], color=COLORS[g % len(COLORS)], markersize=3,
                        label=gv if lines else None)
                if any(len(pts[v]) > 1 for v in xs):
                    ax.fill_between(xs, [min(pts[v]) for v in xs], [max(pts[v]) for v in xs],
                                    color=COLORS[g % len(COLORS)], alpha=0.15, linewidth=0)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.grid(True, which="major")
            if j == 0:
                ax.set_ylabel(res.label(m))
            if i == 0 and facet:
                ax.set_title(str(fv))
            if i == len(metrics) - 1:
                ax.set_xlabel(res.label(x))
    if lines:
        axes[0][-1].legend(title=res.label(lines, False), loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.tight_layout()
    for p in ps.save(fig, args.out):
        print(p)


if __name__ == "__main__":
    main()
