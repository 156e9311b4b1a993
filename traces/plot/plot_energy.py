#!/usr/bin/python3
"""Power over time of a cstsim run from <run-dir>/energy_windows.csv (written by the
energy post-processor): per window, baseline power e_base/duration with the marginal
power e_marg/duration stacked on top, as filled steps; layer boundaries as thin lines.

    /usr/bin/python3 traces/plot/plot_energy.py runs/r1 --out fig/energy

energy_windows.csv: layer,window_start,window_end,time_start_s,time_end_s,e_marg_J,e_base_J,e_gross_J
(energies in J over [time_start_s, time_end_s); windows are cut at layer boundaries).
"""

import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paperstyle as ps  # noqa: E402

TIME_UNITS = {"ns": 1e9, "us": 1e6, "ms": 1e3, "s": 1.0}
TIME_LABEL = {"ns": "ns", "us": "µs", "ms": "ms", "s": "s"}
COLUMNS = ["layer", "window_start", "window_end", "time_start_s", "time_end_s", "e_marg_J", "e_base_J", "e_gross_J"]


def read_windows(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError("%s: missing columns %s" % (path, ", ".join(missing)))
        rows = []
        for n, row in enumerate(reader, start=2):
            try:
                rows.append({"layer": int(row["layer"]),
                             "t0": float(row["time_start_s"]), "t1": float(row["time_end_s"]),
                             "marg": float(row["e_marg_J"]), "base": float(row["e_base_J"]),
                             "gross": float(row["e_gross_J"])})
            except (TypeError, ValueError) as e:
                raise ValueError("%s:%d: %s" % (path, n, e))
    rows.sort(key=lambda r: r["t0"])
    return rows


def main():
    ap = argparse.ArgumentParser(description="Plot power over time (baseline + marginal) from energy_windows.csv.")
    ap.add_argument("run_dir", help="run directory holding energy_windows.csv")
    ap.add_argument("--out", required=True, metavar="PREFIX", help="writes PREFIX.png and PREFIX.pdf")
    ap.add_argument("--csv", default=None, help="energy windows file (default <run-dir>/energy_windows.csv)")
    ps.add_width_arg(ap, "single")
    ap.add_argument("--height", type=float, default=1.6, help="figure height, inches (default 1.6)")
    ap.add_argument("--time-unit", choices=sorted(TIME_UNITS), default="us", help="x axis unit (default us)")
    ap.add_argument("--title", default=None)
    args = ap.parse_args()

    path = args.csv or os.path.join(args.run_dir, "energy_windows.csv")
    try:
        rows = read_windows(path)
    except (OSError, ValueError) as e:
        sys.exit("error: plot_energy: %s" % e)
    if not rows:
        sys.exit("error: plot_energy: %s has no windows" % path)

    # Contiguous edges; a gap between windows becomes a zero-power step.
    edges, base, marg = [rows[0]["t0"]], [], []
    for r in rows:
        if r["t0"] > edges[-1]:
            base.append(0.0)
            marg.append(0.0)
            edges.append(r["t0"])
        dur = r["t1"] - r["t0"]
        if dur <= 0:
            continue
        base.append(r["base"] / dur)
        marg.append(r["marg"] / dur)
        edges.append(r["t1"])
    if not base:
        sys.exit("error: plot_energy: %s: every window has zero duration" % path)

    span = edges[-1] - edges[0]
    peak = max(b + m for b, m in zip(base, marg))
    pf, pu = next(((f, u) for f, u in ((1.0, "W"), (1e3, "mW"), (1e6, "µW"), (1e9, "nW")) if peak * f >= 1),
                  (1e9, "nW"))
    tf = TIME_UNITS[args.time_unit]
    xs = [e * tf for e in edges]
    total_base = sum(r["base"] for r in rows)
    total_marg = sum(r["marg"] for r in rows)

    ps.setup()
    fig, ax = ps.figure(args.width, args.height)
    ax.stairs([b * pf for b in base], xs, baseline=0, fill=True, color="#BBBBBB", linewidth=0,
              label="baseline (%s)" % ps.si(total_base, "J"))
    ax.stairs([(b + m) * pf for b, m in zip(base, marg)], xs, baseline=[b * pf for b in base], fill=True,
              color=ps.CLASS_COLORS["C"], linewidth=0, label="marginal (%s)" % ps.si(total_marg, "J"))
    ax.stairs([(b + m) * pf for b, m in zip(base, marg)], xs, baseline=None, color="black", linewidth=0.5)
    # Layer boundaries: where the layer index changes between consecutive windows.
    for prev, r in zip(rows, rows[1:]):
        if r["layer"] != prev["layer"]:
            ax.axvline(r["t0"] * tf, color="0.3", linewidth=0.4, linestyle="--", zorder=3)
    ax.set_xlim(xs[0], xs[-1] if span > 0 else xs[0] + 1)
    ax.set_ylim(0, peak * pf * 1.25 if peak > 0 else 1)
    ax.set_xlabel("time (%s)" % TIME_LABEL[args.time_unit])
    ax.set_ylabel("power (%s)" % pu)
    ax.legend(loc="upper right", ncol=2, handlelength=1.2, columnspacing=1.0)
    ax.spines["top"].set_visible(False)
    ax.spines["right"].set_visible(False)
    if args.title:
        ax.set_title(args.title)
    fig.tight_layout()
    for p in ps.save(fig, args.out):
        print(p)


if __name__ == "__main__":
    main()
