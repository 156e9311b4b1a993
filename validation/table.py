#!/usr/bin/env python3
"""Gathers every study's results.csv under OUT (validation/run.sh) into one table of published
(or reference-simulator) values against cstsim's, with the error and each row's role, and draws
it. Writes OUT/table.csv, OUT/table.md and OUT/validation.png / .pdf.

    python3 validation/table.py OUT
"""
import csv
import os
import sys

# What each study is compared with, and the bound the issue set for it (|error| in %).
STUDIES = [
    ("eyeriss", "Eyeriss (JSSC 2017)", {"latency": 15, "frame rate": 15, "DRAM": 15, "power": 20}),
    ("tpu-v1", "TPU v1 (ISCA 2017)", {"tiling": 15, "power at full": 25}),
    ("gemmini", "Gemmini (RTL, PR #69)", {"cycles": 15}),
    ("hbm-ramulator2", "HBM3 vs Ramulator 2", {"": 5}),
]
# Comparisons the study does not make yet: listed, so the table says what is missing.
NOT_YET = [
    ("TPU v1 (ISCA 2017)", "CNN1 (4 FC + 72 conv + 13 pool, batch 32)", "its layer shapes are not published"),
    ("Gemmini (RTL)", "a second published network", "none found with cycle counts for the default configuration; the residual additions and poolings are not run as Gemmini runs them"),
]


def bound(limits, quantity):
    for key, value in limits.items():
        if key in quantity:
            return value
    return None


def main(out):
    rows = []
    for study, system, limits in STUDIES:
        path = os.path.join(out, study, "results.csv")
        for r in csv.DictReader(open(path)):
            reference = r.get("published") or r.get("ramulator2")
            role = r.get("role") or "cross-check"
            rows.append({"system": system, "quantity": r["quantity"], "reference": reference,
                         "cstsim": r.get("simulated") or r.get("cstsim"), "unit": r["unit"],
                         "error_pct": float(r["error_pct"]), "role": role, "bound_pct": bound(limits, r["quantity"])})
    with open(os.path.join(out, "table.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    lines = ["| system | quantity | published / reference | cstsim | error | bound | role |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        b = f"±{r['bound_pct']} %" if r["bound_pct"] is not None else "—"
        ok = "" if r["bound_pct"] is None else (" ✓" if abs(r["error_pct"]) <= r["bound_pct"] else " ✗")
        lines.append(f"| {r['system']} | {r['quantity']} | {r['reference']} {r['unit']} | {r['cstsim']} {r['unit']} | "
                     f"{r['error_pct']:+.1f} %{ok} | {b} | {r['role']} |")
    for system, what, why in NOT_YET:
        lines.append(f"| {system} | {what} | | | | | {why} |")
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    draw(rows, out)


def draw(rows, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    plt.rcParams.update({"font.size": 8})
    fig, ax = plt.subplots(figsize=(8.0, 0.28 * len(rows) + 1.0))
    y = list(range(len(rows)))[::-1]
    colors = {"calibration": "#999999", "prediction": "#1f77b4", "cross-check": "#2ca02c"}
    for yi, r in zip(y, rows):
        kind = r["role"].split()[0]
        ax.barh(yi, r["error_pct"], color=colors.get(kind, "#1f77b4"), height=0.6)
        if r["bound_pct"] is not None:
            ax.plot([-r["bound_pct"], r["bound_pct"]], [yi, yi], "|", color="black", markersize=9)
    ax.set_yticks(y)
    ax.set_yticklabels([f"{r['system']}: {r['quantity']}" for r in rows])
    ax.axvline(0, color="black", linewidth=0.6)
    ax.set_xlabel("error of cstsim against the published or reference value (%)")
    from matplotlib.patches import Patch
    from matplotlib.lines import Line2D
    handles = [Patch(color=c, label=k) for k, c in colors.items()]
    handles.append(Line2D([], [], color="black", marker="|", linestyle="none", markersize=9, label="bound"))
    ax.legend(handles=handles, loc="lower right", frameon=False)
    fig.tight_layout()
    for ext in ("png", "pdf"):
        fig.savefig(os.path.join(out, f"validation.{ext}"), dpi=150)


if __name__ == "__main__":
    main(sys.argv[1])
