#!/usr/bin/python3
"""Heatmaps of sweep metrics over two swept keys: one panel per (facet value, metric),
cells annotated, the best cell of each panel outlined (lowest cost, or highest for
utilization-like metrics), colour on a log scale when a panel spans more than 20x.

    /usr/bin/python3 traces/plot/plot_sweep_heatmap.py out/sweeps/array-dataflow \\
        --x array.rows --y dataflow --metric cycles,energy,utilization --facet workload \\
        --out docs/figures/array-dataflow-heatmap

Input: results.csv of `cstsim sweep collect` (a file or the sweep directory); a point that did
not finish is a cell marked "failed" (and named in a footnote). Several rows falling in one cell (a key neither on an axis
nor the facet varies) is an error unless --where pins it.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paperstyle as ps  # noqa: E402
import plot_sweep_common as sc  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description="Heatmaps of sweep metrics over two swept keys.")
    ap.add_argument("results", help="results.csv or the sweep directory")
    ap.add_argument("--x", required=True, help="column on the x axis (e.g. array.rows)")
    ap.add_argument("--y", required=True, help="column on the y axis (e.g. dataflow)")
    ap.add_argument("--metric", required=True, help="comma-separated metrics (columns or aliases: cycles, energy, ...)")
    ap.add_argument("--facet", default=None, help="one row of panels per value of this column (e.g. workload)")
    ap.add_argument("--where", action="append", default=[], metavar="KEY=VALUE", help="keep matching rows (repeatable)")
    ap.add_argument("--log", choices=["auto", "yes", "no"], default="auto", help="log colour scale (default auto)")
    ap.add_argument("--cmap", default="viridis")
    ap.add_argument("--xlabel", default=None, help="x axis label (default: the column)")
    ap.add_argument("--ylabel", default=None, help="y axis label (default: the column)")
    ap.add_argument("--out", required=True, metavar="PREFIX", help="writes PREFIX.png and PREFIX.pdf")
    ps.add_width_arg(ap, "double")
    ap.add_argument("--panel-height", type=float, default=1.05, help="inches per row of panels (default 1.05)")
    ap.add_argument("--title", default=None)
    args = ap.parse_args()

    try:
        res = sc.Results(args.results)
        xcol, ycol = res.column(args.x), res.column(args.y)
        metrics = [res.column(m.strip()) for m in args.metric.split(",") if m.strip()]
        fcol = res.column(args.facet) if args.facet else None
        rows = res.select(args.where)
        failed = res.failed(args.where)
    except (OSError, ValueError) as e:
        sys.exit("error: plot_sweep_heatmap: %s" % e)
    if not rows:
        sys.exit("error: plot_sweep_heatmap: no done rows in %s match" % res.path)
    everything = rows + failed
    facets = sc.sort_values([r[fcol] for r in everything]) if fcol else [None]
    xs = sc.sort_values([r[xcol] for r in everything])
    ys = sc.sort_values([r[ycol] for r in everything])

    import matplotlib.colors as mcolors
    import matplotlib.patches as mpatches

    # One SI prefix per metric across all panels, so a column shares its unit.
    scales = {m: sc.scale_for([sc.number(r.get(m)) for r in rows], res.unit(m)) for m in metrics}

    ps.setup()
    fig, axes = ps.figure(args.width, args.panel_height * len(facets) + 0.35, nrows=len(facets), ncols=len(metrics),
                          squeeze=False)
    for fi, fval in enumerate(facets):
        sub = [r for r in rows if fcol is None or r[fcol] == fval]
        bad = {(ys.index(r[ycol]), xs.index(r[xcol])) for r in failed if fcol is None or r[fcol] == fval}
        for mi, m in enumerate(metrics):
            ax = axes[fi][mi]
            grid = [[None] * len(xs) for _ in ys]
            for r in sub:
                i, j = ys.index(r[ycol]), xs.index(r[xcol])
                if grid[i][j] is not None:
                    sys.exit("error: plot_sweep_heatmap: several rows in cell %s=%s, %s=%s%s; pin the other keys with "
                             "--where" % (xcol, r[xcol], ycol, r[ycol], "" if fval is None else ", %s=%s" % (fcol, fval)))
                grid[i][j] = sc.number(r.get(m))
            vals = [v for row in grid for v in row if v is not None]
            if not vals:
                ax.set_axis_off()
                continue
            factor, unit = scales[m]
            grid = [[None if v is None else v / factor for v in row] for row in grid]
            vals = [v / factor for v in vals]
            lo, hi = min(vals), max(vals)
            use_log = args.log == "yes" or (args.log == "auto" and lo > 0 and hi / lo > 20)
            norm = mcolors.LogNorm(vmin=lo, vmax=hi) if use_log and lo > 0 else mcolors.Normalize(vmin=lo, vmax=hi)
            masked = [[float("nan") if v is None else v for v in row] for row in grid]
            cmap = matplotlib_cmap(args.cmap)
            im = ax.imshow(masked, aspect="auto", cmap=cmap, norm=norm, interpolation="nearest")
            higher = m in sc.HIGHER_IS_BETTER
            best = max(vals) if higher else min(vals)
            for i in range(len(ys)):
                for j in range(len(xs)):
                    v = grid[i][j]
                    if v is None and (i, j) in bad:
                        ax.add_patch(mpatches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="////",
                                                        edgecolor=sc.FAILED_COLOR, linewidth=0))
                        ax.text(j, i, "failed", ha="center", va="center", fontsize=5, color=sc.FAILED_COLOR,
                                bbox=dict(facecolor="white", edgecolor="none", pad=0.6))
                        continue
                    if v is None:
                        ax.text(j, i, "–", ha="center", va="center", fontsize=5.5, color="0.4")
                        continue
                    rgba = cmap(norm(v))
                    lum = 0.299 * rgba[0] + 0.587 * rgba[1] + 0.114 * rgba[2]
                    ax.text(j, i, sc.cell_text(v, not unit), ha="center", va="center", fontsize=5.2,
                            color="black" if lum > 0.55 else "white")
                    if v == best:
                        ax.add_patch(mpatches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="#D55E00",
                                                        linewidth=1.1))
            ax.set_xticks(range(len(xs)))
            ax.set_xticklabels(xs if fi == len(facets) - 1 else [""] * len(xs), fontsize=6)
            ax.set_yticks(range(len(ys)))
            ax.set_yticklabels(ys if mi == 0 else [""] * len(ys), fontsize=6)
            ax.tick_params(length=2, pad=1.5)
            if fi == len(facets) - 1:
                ax.set_xlabel(args.xlabel or res.label(xcol, False), fontsize=7, labelpad=1.5)
            if mi == 0:
                ax.set_ylabel(("%s\n" % fval if fval is not None else "") + (args.ylabel or res.label(ycol, False)), fontsize=7)
            if fi == 0:
                name = res.label(m, False) + (" (%s)" % unit if unit else "")
                ax.set_title(name + (" ↑" if higher else " ↓"), fontsize=7, pad=3)
            cb = fig.colorbar(im, ax=ax, fraction=0.07, pad=0.02)
            cb.ax.tick_params(labelsize=5.5, length=1.5, pad=1)
            cb.outline.set_linewidth(0.4)
    if args.title:
        fig.suptitle(args.title, fontsize=8)
    fig.tight_layout(h_pad=0.4, w_pad=0.6, rect=(0, 0.03 if failed else 0, 1, 1))
    note = sc.failed_note(fig, failed, [k for k in res.params if k not in (xcol, ycol, fcol)] + [xcol, ycol])
    for p in ps.save(fig, args.out):
        print(p)
    if note:
        print(note)


def matplotlib_cmap(name):
    import matplotlib
    cmap = matplotlib.colormaps[name].copy() if hasattr(matplotlib, "colormaps") else matplotlib.cm.get_cmap(name)
    cmap.set_bad("0.9")
    return cmap


if __name__ == "__main__":
    main()
