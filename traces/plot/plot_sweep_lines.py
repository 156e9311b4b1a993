#!/usr/bin/python3
"""Line plots of a sweep: metrics (rows of panels: cycles and energy by default) against one swept
numeric parameter (--x, default the first one with several values: e.g. the array's PEs), one line
per value of another (--lines, default dataflow when swept), one column of panels per value of a
third (--facet, default the workload when several). Reads results.csv (or the sweep directory);
a point that did not finish is a red cross at its x on the panel's floor, and a footnote names
it. Writes PREFIX.png and PREFIX.pdf."""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paperstyle as ps  # noqa: E402
import plot_sweep_common as sc  # noqa: E402

plt = ps.plt


def x_of(row, x):
    """The row's x value; a point that did not finish has no arch.pes, but its array sides say it."""
    v = sc.number(row.get(x))
    if v is None and x == "arch.pes":
        side = sc.number(row.get("array.size"))
        rows, cols = sc.number(row.get("array.rows")) or side, sc.number(row.get("array.cols")) or side
        v = rows * cols if rows is not None and cols is not None else None
    return v


def swept(rows, col):
    return sc.ordered(col, [r.get(col, "") for r in rows])


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
        failed = res.failed()
        if not rows:
            raise ValueError("%s: no finished point" % res.path)
        numeric = [c for c in ["arch.pes"] + res.params
                   if c in res.columns and len(swept(rows, c)) > 1
                   and all(sc.number(r.get(c)) is not None for r in rows)]
        x = res.column(args.x) if args.x else (numeric[0] if numeric else None)
        if x is None:
            raise ValueError("%s: no numeric parameter takes several values (give --x)" % res.path)
        lines = res.column(args.lines) if args.lines else (
            "dataflow" if "dataflow" in res.columns and len(swept(rows, "dataflow")) > 1 else None)
        facet = res.column(args.facet) if args.facet else (
            "workload" if "workload" in res.columns and len(swept(rows, "workload")) > 1 else None)
        metrics = [res.column(m.strip()) for m in args.metric.split(",") if m.strip()]
    except (OSError, ValueError) as e:
        sys.exit("error: plot_sweep_lines.py: %s" % e)
    facets = swept(rows, facet) if facet else [None]
    groups = swept(rows + failed, lines) if lines else [None]  # a line whose every point failed keeps its style
    style = sc.styles(lines, groups)
    # Each metric in one SI-prefixed unit (J -> mJ, s -> µs); unitless counts as they are.
    scales = {m: sc.scale_for([sc.number(r.get(m)) for r in rows], res.unit(m)) for m in metrics}
    # PEs as the array's sides (128x128) when each x value is one array shape.
    shapes = {}
    for r in rows + failed:
        if x == "arch.pes" and x_of(r, x) is not None and sc.array_label(r):
            shapes.setdefault(x_of(r, x), set()).add(sc.array_label(r))
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
                        pts.setdefault(xv, []).append(yv / scales[m][0])
                if not pts:
                    continue
                xs = sorted(pts)
                # Several points at one x (other parameters swept too): their mean, with their range.
                ys = [sum(pts[v]) / len(pts[v]) for v in xs]
                color, marker = style[gv]
                ax.plot(xs, ys, marker=marker, color=color, markersize=3, label=gv if lines and i == 0 else None)
                if any(len(pts[v]) > 1 for v in xs):
                    ax.fill_between(xs, [min(pts[v]) for v in xs], [max(pts[v]) for v in xs],
                                    color=color, alpha=0.15, linewidth=0)
            # Points that did not finish: a cross on the panel's floor at their x.
            for g, gv in enumerate(groups):
                xs_bad = sorted({x_of(r, x) for r in failed
                                 if x_of(r, x) is not None and (not facet or r.get(facet) == fv)
                                 and (not lines or r.get(lines) == gv)})
                if xs_bad:
                    ax.scatter(xs_bad, [0.03] * len(xs_bad), marker="x", s=14, linewidths=0.9,
                               color=sc.FAILED_COLOR, transform=ax.get_xaxis_transform(), clip_on=False, zorder=5)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.grid(True, which="major")
            ax.autoscale_view()
            sc.log_ticks(ax, x=False)
            if shapes and all(len(v) == 1 for v in shapes.values()):
                ticks = sorted(shapes)
                ax.set_xticks(ticks)
                ax.set_xticklabels([next(iter(shapes[t])) for t in ticks])
                from matplotlib.ticker import NullLocator
                ax.xaxis.set_minor_locator(NullLocator())
            if j == 0:
                unit = scales[m][1]
                ax.set_ylabel(res.label(m, False) + (" (%s)" % unit if unit else ""))
            if i == 0 and facet:
                ax.set_title(str(fv))
            if i == len(metrics) - 1:
                ax.set_xlabel("array (rows x cols)" if shapes and all(len(v) == 1 for v in shapes.values())
                              else res.label(x))
    if lines or failed:  # every line's style, whichever panels it is in, and the failed mark
        from matplotlib.lines import Line2D
        handles = [Line2D([], [], color=style[gv][0], marker=style[gv][1], markersize=3, label=str(gv))
                   for gv in groups] if lines else []
        if failed:
            handles.append(Line2D([], [], linestyle="none", marker="x", color=sc.FAILED_COLOR, markersize=4,
                                  label="failed (%d)" % len(failed)))
        axes[0][-1].legend(handles=handles, title=res.label(lines, False) if lines else None, loc="upper left",
                           bbox_to_anchor=(1.02, 1.0))
    fig.suptitle(sc.caption(rows + failed), fontsize=7)
    fig.tight_layout(rect=(0, 0.04 if failed else 0, 1, 1))
    note = sc.failed_note(fig, failed, res.params)
    for p in ps.save(fig, args.out):
        print(p)
    if note:
        print(note)


if __name__ == "__main__":
    main()
