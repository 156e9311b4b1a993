#!/usr/bin/python3
"""Pareto front of a sweep: every point as a marker on two axes (log-log by default),
coloured by one column (e.g. dataflow), sized by another (e.g. arch.pes); the non-dominated
points ringed in black and named, and, when the front is taken over the two plotted axes,
joined by the staircase that bounds the dominated region.

    /usr/bin/python3 traces/plot/plot_pareto.py out/sweeps/array-dataflow --x cycles --y energy \\
        --front cycles,energy,pes --color dataflow --size pes --facet workload \\
        --out docs/figures/array-dataflow-pareto

Rule (seed 000 §140, the one `cstsim pareto` applies): A dominates B when A is no worse on
every front axis (costs lower or equal; --quality axes higher or equal) and strictly better on
at least one. Points equal on every axis do not dominate each other.
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paperstyle as ps  # noqa: E402
import plot_sweep_common as sc  # noqa: E402


def dominates(a, b):
    """a, b: (costs, qualities) tuples of lists."""
    strict = False
    for x, y in zip(a[0], b[0]):
        if x > y:
            return False
        strict |= x < y
    for x, y in zip(a[1], b[1]):
        if x < y:
            return False
        strict |= x > y
    return strict


def front_of(points):
    return [i for i, p in enumerate(points) if not any(dominates(q, p) for j, q in enumerate(points) if j != i)]


def main():
    ap = argparse.ArgumentParser(description="Scatter of a sweep on two axes with its Pareto front.")
    ap.add_argument("results", help="results.csv or the sweep directory")
    ap.add_argument("--x", default="cycles", help="x axis column or alias (default cycles)")
    ap.add_argument("--y", default="energy", help="y axis column or alias (default energy)")
    ap.add_argument("--front", default=None,
                    help="cost axes of the front, comma-separated (default: x,y); e.g. cycles,energy,pes")
    ap.add_argument("--quality", default="", help="quality axes of the front (maximised), comma-separated")
    ap.add_argument("--color", default="dataflow", help="colour by this column (default dataflow; 'none')")
    ap.add_argument("--size", default=None, help="marker area grows with this numeric column (e.g. pes)")
    ap.add_argument("--label", default=None, help="parameter columns naming front points (default the array's "
                                                   "sides, array.rows,array.cols or array.size, as swept)")
    ap.add_argument("--facet", default=None, help="one panel per value of this column, each with its own front "
                                                   "(default: the workload when there are several; 'none': one panel)")
    ap.add_argument("--where", action="append", default=[], metavar="KEY=VALUE", help="keep matching rows")
    ap.add_argument("--linear", action="store_true", help="linear axes instead of log-log")
    ap.add_argument("--out", required=True, metavar="PREFIX", help="writes PREFIX.png and PREFIX.pdf")
    ps.add_width_arg(ap, "double")
    ap.add_argument("--height", type=float, default=2.3, help="figure height, inches (default 2.3)")
    ap.add_argument("--title", default=None)
    args = ap.parse_args()

    try:
        res = sc.Results(args.results)
        xcol, ycol = res.column(args.x), res.column(args.y)
        fcols = [res.column(a.strip()) for a in (args.front or "%s,%s" % (args.x, args.y)).split(",") if a.strip()]
        qcols = [res.column(a.strip()) for a in args.quality.split(",") if a.strip()]
        ccol = None if args.color == "none" else res.column(args.color)
        scol = res.column(args.size) if args.size else None
        label = args.label or ",".join(c for c in ("array.rows", "array.cols", "array.size") if c in res.columns)
        lcols = [res.column(a.strip()) for a in label.split(",") if a.strip()]
        if args.facet == "none":
            facol = None
        elif args.facet:
            facol = res.column(args.facet)
        else:  # a front across workloads compares a point of one with a point of another: never by default
            facol = "workload" if "workload" in res.columns and len({r["workload"] for r in res.rows}) > 1 else None
        rows = res.select(args.where)
        failed = res.failed(args.where)  # not placed (no metrics): named in a footnote
    except (OSError, ValueError) as e:
        sys.exit("error: plot_pareto: %s" % e)
    rows = [r for r in rows if all(sc.number(r.get(c)) is not None for c in [xcol, ycol] + fcols + qcols)]
    if not rows:
        sys.exit("error: plot_pareto: no done rows with values for every axis in %s" % res.path)
    facets = sc.sort_values([r[facol] for r in rows + failed]) if facol else [None]
    cvals = sc.ordered(ccol, [r[ccol] for r in rows + failed]) if ccol else [None]
    style = sc.styles(ccol, cvals)
    svals = [sc.number(r[scol]) for r in rows] if scol else []
    smin, smax = (min(svals), max(svals)) if svals else (1, 1)
    stairs = set(fcols) == {xcol, ycol} and not qcols
    # Each axis in one SI-prefixed unit (J -> mJ), so tick labels stay short.
    fx, ux = sc.scale_for([sc.number(r[xcol]) for r in rows], res.unit(xcol))
    fy, uy = sc.scale_for([sc.number(r[ycol]) for r in rows], res.unit(ycol))

    def X(r):
        return sc.number(r[xcol]) / fx

    def Y(r):
        return sc.number(r[ycol]) / fy

    def area(r):
        if not scol or smax == smin:
            return 16
        t = (math.log(sc.number(r[scol])) - math.log(smin)) / (math.log(smax) - math.log(smin)) if smin > 0 else 0.5
        return 8 + 26 * t

    ps.setup()
    fig, axes = ps.figure(args.width, args.height, ncols=len(facets), squeeze=False)
    axes = axes[0]
    named = []  # (axes, front points' labels): placed once the layout is final
    for ax, fval in zip(axes, facets):
        sub = [r for r in rows if facol is None or r[facol] == fval]
        pts = [([sc.number(r[c]) for c in fcols], [sc.number(r[c]) for c in qcols]) for r in sub]
        front = set(front_of(pts))
        for cv in cvals:
            mine = [r for r in sub if ccol is None or r[ccol] == cv]
            ax.scatter([X(r) for r in mine], [Y(r) for r in mine], s=[area(r) for r in mine], color=style[cv][0],
                       marker=style[cv][1], alpha=0.85, linewidths=0, zorder=3)
        fr = sorted((sub[i] for i in front), key=lambda r: (X(r), Y(r)))
        ax.scatter([X(r) for r in fr], [Y(r) for r in fr], s=[area(r) + 14 for r in fr],
                   facecolors="none", edgecolors="black", linewidths=0.7, zorder=4)
        if stairs and len(fr) > 1:
            xs, ys = [], []
            for r in fr:
                x, y = X(r), Y(r)
                if xs:
                    xs.append(x)
                    ys.append(ys[-1])
                xs.append(x)
                ys.append(y)
            ax.plot(xs, ys, color="black", linewidth=0.6, linestyle="--", zorder=2)
        named.append((ax, [(X(r), Y(r), sc.point_label(r, lcols)) for r in fr]))
        if not args.linear:
            ax.set_xscale("log")
            ax.set_yscale("log")
        ax.set_xlabel(res.label(xcol, False) + (" (%s)" % ux if ux else ""))
        if ax is axes[0]:
            ax.set_ylabel(res.label(ycol, False) + (" (%s)" % uy if uy else ""))
        ax.grid(True, which="major")
        title = "" if fval is None else str(fval)
        note = "%d of %d non-dominated" % (len(front), len(sub))
        if len(front) == 1 and len(sub) > 1:
            note = "one point dominates all %d" % len(sub)
        bad = [r for r in failed if facol is None or r.get(facol) == fval]
        if bad:  # not placed (no metrics): counted here, named in the footnote
            note += "; %d failed" % len(bad)
        ax.set_title((title + ": " if title else "") + note, fontsize=7)
        ax.margins(0.12)
        if not args.linear:
            ax.autoscale_view()
            sc.log_ticks(ax)
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], linestyle="none", color=style[cv][0], marker=style[cv][1], markersize=3.5, label=str(cv))
               for cv in cvals] if ccol else []
    handles.append(Line2D([], [], linestyle="none", marker="o", markerfacecolor="none", markeredgecolor="black",
                          markersize=4.5, label="non-dominated"))
    if failed:
        handles.append(Line2D([], [], linestyle="none", marker="x", color=sc.FAILED_COLOR, markersize=4,
                              label="failed: %d (listed below)" % len(failed)))
    axes[-1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=5.5,
                    title=res.label(ccol, False) if ccol else None)
    front_desc = ", ".join(res.label(c, False) for c in fcols) + "".join(", %s ↑" % res.label(c, False) for c in qcols)
    size_note = "; marker area grows with log %s" % res.label(scol, False) if scol else ""
    fig.suptitle(args.title or "Pareto front over %s (lower is better%s)%s%s\n%s" % (
        front_desc, "" if not qcols else "; ↑ higher is better", size_note,
        ", one front per %s" % facol if facol else "", sc.caption(rows + failed)), fontsize=7.5)
    fig.tight_layout(w_pad=0.8, rect=(0, 0.04 if failed else 0, 1, 1))
    left_out = sum(sc.place_labels(ax, pts) for ax, pts in named)
    if left_out:
        print("plot_pareto: %d front point label(s) left out: no free spot beside the point" % left_out)
    note = sc.failed_note(fig, failed, res.params)
    for p in ps.save(fig, args.out):
        print(p)
    if note:
        print(note)


if __name__ == "__main__":
    main()
