#!/usr/bin/python3
"""R(t) of chosen sweep points side by side: one column per point, one row per resource
class (C, M, N, S), every resource as occupancy / capacity (0..1). Each column has its own
time axis (the runs differ in length) unless --shared-time.

    # points 6, 7, 8 of a sweep (titles from its tasks.csv)
    /usr/bin/python3 traces/plot/plot_rt_compare.py out/sweeps/array-dataflow --points 6,7,8 \\
        --layer Conv2_1a --out docs/figures/array-dataflow-rt
    # or any run directories
    /usr/bin/python3 traces/plot/plot_rt_compare.py runs/a runs/b --labels ws,os --out fig/rt

--layer NAME zooms every column to that layer's span. A span with more than --max-points
records is drawn as exact per-bin time averages (--bins), and the panel says so.
"""

import argparse
import csv
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cstsim_trace as ct  # noqa: E402
import paperstyle as ps  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

LINESTYLES = ["-", "--", ":", "-."]


def span_series(t, lo, hi, ids, max_points, bins):
    """{id: (xs, ys)} over cycles [lo, hi): exact steps, or per-bin means when the span holds more
    than max_points records. Returns (series, binned)."""
    n_in = 0
    value = {i: 0 for i in ids}
    recs = []
    for cycle, rid, v in t.records():
        if rid not in value:
            continue
        if cycle <= lo:
            value[rid] = v
            continue
        if cycle >= hi:
            break
        recs.append((cycle, rid, v))
        n_in += 1
    start = dict(value)
    if n_in <= max_points:
        out = {i: ([lo], [start[i]]) for i in ids}
        for cycle, rid, v in recs:
            xs, ys = out[rid]
            xs.append(cycle)
            ys.append(v)
        for i in ids:
            out[i][0].append(hi)
            out[i][1].append(out[i][1][-1])
        return out, False
    width = (hi - lo) / bins
    acc = {i: [0.0] * bins for i in ids}
    last_c = {i: lo for i in ids}
    last_v = dict(start)

    def spread(rid, c0, c1, v):
        if v == 0 or c1 <= c0:
            return
        a = acc[rid]
        k = min(int((c0 - lo) / width), bins - 1)
        while c0 < c1:
            edge = lo + (k + 1) * width if k + 1 < bins else c1
            seg_end = min(c1, edge)
            a[k] += v * (seg_end - c0)
            c0 = seg_end
            k += 1

    for cycle, rid, v in recs:
        spread(rid, last_c[rid], cycle, last_v[rid])
        last_c[rid], last_v[rid] = cycle, v
    for i in ids:
        spread(i, last_c[i], hi, last_v[i])
    edges = [lo + k * width for k in range(bins + 1)]
    return {i: (edges, [s / width for s in acc[i]]) for i in ids}, True


def sweep_rows(sweep_dir):
    with open(os.path.join(sweep_dir, "tasks.csv"), newline="") as f:
        return {r["index"]: r for r in csv.DictReader(f)}


def main():
    ap = argparse.ArgumentParser(description="R(t) of several runs side by side.")
    ap.add_argument("sources", nargs="+", help="a sweep directory (with --points) or run directories")
    ap.add_argument("--points", default=None, help="comma-separated point indices of the sweep")
    ap.add_argument("--labels", default=None, help="comma-separated column titles (default: from tasks.csv or dir names)")
    ap.add_argument("--layer", default=None, help="zoom every column to this layer's span")
    ap.add_argument("--classes", default="C,M,N,S", help="classes to draw, in order (default C,M,N,S, those present)")
    ap.add_argument("--shared-time", action="store_true", help="one time axis for all columns")
    ap.add_argument("--max-points", type=int, default=20000, help="exact steps up to this many records per span")
    ap.add_argument("--bins", type=int, default=600, help="bins of the averaged view (default 600)")
    ap.add_argument("--out", required=True, metavar="PREFIX", help="writes PREFIX.png and PREFIX.pdf")
    ps.add_width_arg(ap, "double")
    ap.add_argument("--panel-height", type=float, default=0.75, help="inches per class row (default 0.75)")
    ap.add_argument("--title", default=None)
    args = ap.parse_args()

    runs, titles, common = [], [], ""
    try:
        if args.points is not None:
            if len(args.sources) != 1:
                sys.exit("error: plot_rt_compare: --points takes one sweep directory")
            sweep = args.sources[0]
            tasks = sweep_rows(sweep)
            with open(os.path.join(sweep, "sweep.json")) as f:
                keys = ["workload", "batch"] + json.load(f)["param_keys"]
            idx = [p.strip() for p in args.points.split(",") if p.strip()]
            for i in idx:
                if i not in tasks:
                    sys.exit("error: plot_rt_compare: %s has no point %s" % (sweep, i))
                runs.append(os.path.join(sweep, "points", i))
            differ = [k for k in keys if len({tasks[i].get(k) for i in idx}) > 1]
            same = [k for k in keys if k not in differ]
            titles = ["#%s %s" % (i, " ".join(tasks[i][k] for k in differ)) for i in idx]
            t0 = tasks[idx[0]]
            parts = []
            for k in same:
                if k == "batch" and t0[k] == "1":
                    continue
                if k == "array.cols" and "array.rows" in same:
                    continue
                if k == "array.rows" and "array.cols" in same:
                    parts.append("%s×%s array" % (t0["array.rows"], t0["array.cols"]))
                elif k == "workload":
                    parts.append(t0[k])
                else:
                    parts.append("%s %s" % (k, t0[k]))
            common = ", ".join(parts)
        else:
            runs = list(args.sources)
            titles = [os.path.basename(os.path.normpath(r)) for r in runs]
        if args.labels:
            titles = args.labels.split(",")
            if len(titles) != len(runs):
                sys.exit("error: plot_rt_compare: %d labels for %d runs" % (len(titles), len(runs)))
        traces = [ct.Trace(r) for r in runs]
    except (OSError, ValueError, KeyError) as e:
        sys.exit("error: plot_rt_compare: %s" % e)

    want = [c.strip() for c in args.classes.split(",") if c.strip()]
    classes = [c for c in want if any(r["class"] == c for t in traces for r in t.resources)]
    spans = []
    for t, run in zip(traces, runs):
        lo, hi = 0, t.end_cycle
        if args.layer:
            match = [lr for lr in t.layers if lr["name"] == args.layer]
            if not match:
                sys.exit("error: plot_rt_compare: %s has no layer %r" % (run, args.layer))
            lo, hi = match[0]["start_cycle"], match[0]["end_cycle"] + 1
        spans.append((lo, max(hi, lo + 1)))
    longest = max((hi - lo) * t.period_s for t, (lo, hi) in zip(traces, spans))

    ps.setup()
    fig, axes = ps.figure(args.width, args.panel_height * len(classes) + 0.75, nrows=len(classes), ncols=len(traces),
                          squeeze=False, sharey=True)
    any_binned = False
    # One style per resource name across the columns, and one legend listing every name: runs of
    # different dataflows have different resources (OS's accumulators, WS's stationary registers).
    names = {cls: [] for cls in classes}
    for t in traces:
        for r in t.resources:
            if r["class"] in names and r["name"] not in names[r["class"]]:
                names[r["class"]].append(r["name"])

    def style_of(cls, name):
        k = names[cls].index(name)
        return dict(color=ps.CLASS_COLORS[cls], linestyle=LINESTYLES[k % len(LINESTYLES)],
                    alpha=1.0 if k < len(LINESTYLES) else 0.6, label=name)

    for col, (t, (lo, hi), title) in enumerate(zip(traces, spans, titles)):
        ids = [r["id"] for r in t.resources if r["class"] in classes]
        series, binned = span_series(t, lo, hi, set(ids), args.max_points, args.bins)
        any_binned |= binned
        seconds = longest if args.shared_time else (hi - lo) * t.period_s
        factor, unit = ps.time_scale(seconds)
        scale = factor * t.period_s
        for row, cls in enumerate(classes):
            ax = axes[row][col]
            members = [r for r in t.resources if r["class"] == cls]
            for r in members:
                xs, ys = series[r["id"]]
                cap = float(r["capacity"]) or 1.0
                style = style_of(cls, r["name"])
                if binned:
                    ax.stairs([y / cap for y in ys], [(x - lo) * scale for x in xs], baseline=None, **style)
                else:
                    ax.step([(x - lo) * scale for x in xs], [y / cap for y in ys], where="post", **style)
            ax.set_ylim(-0.05, 1.1)
            ax.set_yticks([0, 0.5, 1])
            ax.set_xlim(0, (longest / t.period_s if args.shared_time else (hi - lo)) * scale)
            ax.grid(True, axis="y")
            ax.spines["top"].set_visible(False)
            ax.spines["right"].set_visible(False)
            if not args.layer:
                for layer in t.layers[1:]:
                    ax.axvline((layer["start_cycle"] - lo) * scale, color="0.6", linewidth=0.3, zorder=0)
            if row < len(classes) - 1:
                ax.tick_params(labelbottom=False)
            if col == 0:
                ax.set_ylabel(cls, rotation=0, ha="right", va="center")
            if row == 0:
                ax.set_title(title, fontsize=7, pad=3)
            if col == len(traces) - 1:
                handles = [Line2D([], [], **style_of(cls, n)) for n in names[cls]]
                ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=7, handlelength=2.0,
                          borderaxespad=0.0)
        axes[-1][col].set_xlabel("time (%s)%s" % (unit, "" if not args.layer else " in " + args.layer), fontsize=7)
    head = args.title
    if head is None:
        head = "R(t), occupancy / capacity" + (": " + common if common else "")
        if any_binned:
            head += " (mean per bin)"
    fig.suptitle(head, fontsize=7.5)
    fig.tight_layout(h_pad=0.3, w_pad=0.5)
    for p in ps.save(fig, args.out):
        print(p)


if __name__ == "__main__":
    main()
