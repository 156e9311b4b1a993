#!/usr/bin/python3
"""Every point of a sweep on one roofline plot: each point at (I_A, achieved op/s) of its
whole run, under the roof min(peak, I_A x bandwidth) of its own machine. Points and roofs
share a colour per value of --color (default the array size, arch.pes), the marker shape
follows --marker (default dataflow) and the fill --fill (default workload: filled, open,
half).

    /usr/bin/python3 traces/plot/plot_sweep_roofline.py out/sweeps/array-dataflow \\
        --out docs/figures/array-dataflow-roofline

results.csv columns read: roofline.I_A, roofline.achieved_ops_per_s, machine.peak_ops_per_s,
machine.bandwidth (and roofline.level for the axis label).
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paperstyle as ps  # noqa: E402
import plot_sweep_common as sc  # noqa: E402

FILLS = ["full", "none", "bottom", "left", "right", "top"]


def bandwidth(row):
    """The memory roof's slope: the bandwidth the binding ceiling allows the outermost level's bytes
    (roofline.bandwidth: the stack's, or less through the clusters' mesh ports), else the machine's."""
    return sc.number(row.get("roofline.bandwidth")) or sc.number(row["machine.bandwidth"])


def main():
    ap = argparse.ArgumentParser(description="All sweep points on one roofline plot.")
    ap.add_argument("results", help="results.csv or the sweep directory")
    ap.add_argument("--color", default="pes", help="colour (and roof) per value of this column (default pes)")
    ap.add_argument("--marker", default="dataflow", help="marker shape per value of this column ('none': circles)")
    ap.add_argument("--fill", default="workload", help="marker fill per value of this column ('none': filled)")
    ap.add_argument("--where", action="append", default=[], metavar="KEY=VALUE", help="keep matching rows")
    ap.add_argument("--out", required=True, metavar="PREFIX", help="writes PREFIX.png and PREFIX.pdf")
    ps.add_width_arg(ap, "single")
    ap.add_argument("--height", type=float, default=2.6, help="figure height, inches (default 2.6)")
    ap.add_argument("--title", default=None)
    args = ap.parse_args()

    need = ["roofline.I_A", "roofline.achieved_ops_per_s", "machine.peak_ops_per_s", "machine.bandwidth"]
    try:
        res = sc.Results(args.results)
        for c in need:
            res.column(c)
        ccol = res.column(args.color)
        mcol = None if args.marker == "none" else res.column(args.marker)
        fcol = None if args.fill == "none" else res.column(args.fill)
        rows = res.select(args.where)
        failed = res.failed(args.where)  # not placed (no metrics): named in a footnote
    except (OSError, ValueError) as e:
        sys.exit("error: plot_sweep_roofline: %s" % e)
    rows = [r for r in rows if all((sc.number(r.get(c)) or 0) > 0 for c in need)]
    if not rows:
        sys.exit("error: plot_sweep_roofline: no done rows with a positive I_A, achieved op/s, peak and bandwidth")

    import matplotlib

    cvals = sc.sort_values([r[ccol] for r in rows])
    mvals = sc.sort_values([r[mcol] for r in rows]) if mcol else [None]
    marker = {v: m for v, (_, m) in sc.styles(mcol, mvals).items()}  # a dataflow's marker is the same in every figure
    fvals = sc.sort_values([r[fcol] for r in rows]) if fcol else [None]
    cmap = matplotlib.colormaps["viridis"] if hasattr(matplotlib, "colormaps") else matplotlib.cm.get_cmap("viridis")
    colors = {v: cmap(0.92 * k / max(1, len(cvals) - 1)) for k, v in enumerate(cvals)}

    xs = [sc.number(r["roofline.I_A"]) for r in rows]
    ys = [sc.number(r["roofline.achieved_ops_per_s"]) for r in rows]
    roofs = {}
    for r in rows:
        roofs.setdefault((sc.number(r["machine.peak_ops_per_s"]), bandwidth(r)), r[ccol])
    ridges = [p / b for p, b in roofs]
    x_lo = min(xs + ridges) / 3
    x_hi = max(xs + ridges) * 3
    y_lo = min(ys + [x_lo * b for _, b in roofs]) / 2
    y_hi = max(p for p, _ in roofs) * 2.5

    ps.setup()
    fig, ax = ps.figure(args.width, args.height)
    ax.set_xscale("log")
    ax.set_yscale("log")
    for (peak, bw), cv in sorted(roofs.items()):
        ridge = peak / bw
        ax.plot([x_lo, ridge, x_hi], [x_lo * bw, peak, peak], color=colors[cv], linewidth=0.8, zorder=1, alpha=0.9)
    for r, x, y in zip(rows, xs, ys):
        f = fvals.index(r[fcol]) if fcol else 0
        ax.plot([x], [y], linestyle="none", marker=marker[r[mcol] if mcol else None], markersize=3.6,
                fillstyle=FILLS[f % len(FILLS)], color=colors[r[ccol]], markeredgecolor=colors[r[ccol]],
                markeredgewidth=0.7, zorder=3)
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)
    level = rows[0].get("roofline.level", "")
    ax.set_xlabel("arithmetic intensity $I_A$ (op/byte%s)" % (", %s" % level if level else ""))
    ax.set_ylabel("performance (op/s)")
    ax.grid(True, which="major")

    # Legends: colour (roofs), marker, fill, as proxy artists.
    from matplotlib.lines import Line2D

    def color_label(v):
        if ccol == "arch.pes":  # name the array by its shape
            r = next(r for r in rows if r[ccol] == v)
            if r.get("arch.rows") and r.get("arch.cols"):
                return "%s×%s array" % (r["arch.rows"], r["arch.cols"])
        return "%s %s" % (res.label(ccol, False), v)

    def heading(text):
        return Line2D([], [], linestyle="none", label=text)

    handles = [Line2D([], [], color=colors[v], linewidth=1.2, label=color_label(v)) for v in cvals]
    if mcol:
        handles.append(heading(res.label(mcol, False) + ":"))
        handles += [Line2D([], [], linestyle="none", marker=marker[v], color="0.3", markersize=3.6, label=str(v))
                    for v in mvals]
    if fcol:
        handles.append(heading(res.label(fcol, False) + ":"))
        handles += [Line2D([], [], linestyle="none", marker="o", fillstyle=FILLS[k % len(FILLS)], color="0.3",
                           markersize=3.6, label=str(v)) for k, v in enumerate(fvals)]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=5.5, handlelength=1.6,
              borderaxespad=0.0)
    ax.set_title(args.title or "%d points, one roof per machine\n%s" % (len(rows), sc.caption(rows + failed)), fontsize=7)
    fig.tight_layout(rect=(0, 0.04 if failed else 0, 1, 1))
    note = sc.failed_note(fig, failed, res.params)
    for p in ps.save(fig, args.out):
        print(p)
    if note:
        print(note)


if __name__ == "__main__":
    main()
