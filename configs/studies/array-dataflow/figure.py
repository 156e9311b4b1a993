#!/usr/bin/python3
"""The array-dataflow study's figure and table, from its two sweeps' results.csv.

    figure.py <cnn-bert sweep dir> <llm sweep dir> --out PREFIX [--table FILE]

One panel per workload: cycles against the array's side (32..256) on log axes, one colour per
dataflow, solid with the full memory hierarchy and dashed with ideal memory; a point that did
not finish is a red cross on the panel's floor (none should). The table (markdown) gives, per
workload and dataflow, the hierarchy's cycles at each size, the cost of memory over the ideal
run, and the stall cause that dominates at 256 x 256.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "traces", "plot"))

import paperstyle as ps  # noqa: E402
import plot_sweep_common as sc  # noqa: E402

DATAFLOWS = ["ws", "os", "is", "rs"]
COLORS = {"ws": "#0072B2", "os": "#E69F00", "is": "#009E73", "rs": "#CC79A7"}
TITLES = {"resnet50": "ResNet-50 (int8)", "bert-base-layer": "BERT-base layer (int8)",
          "llama2-7b-decode-b1-l4096": "Llama-2-7B decode block (bf16)",
          "llama2-7b-prefill-s512": "Llama-2-7B prefill S 512 block (bf16)"}


def load(dirs):
    rows = []
    for d in dirs:
        res = sc.Results(d)
        rows += res.rows
    return rows


def key(r):
    return r["workload"], r["dataflow"], r["memory"], int(r["array.size"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sweeps", nargs="+", help="sweep directories (or results.csv)")
    ap.add_argument("--out", required=True, help="figure prefix (PREFIX.png, PREFIX.pdf)")
    ap.add_argument("--table", help="write the markdown table here (default: stdout)")
    a = ap.parse_args()
    rows = load(a.sweeps)
    done = {key(r): r for r in rows if r.get("status") == "done"}
    failed = [r for r in rows if r.get("status") != "done"]
    workloads = [w for w in TITLES if any(r["workload"] == w for r in rows)]
    sizes = sorted({int(r["array.size"]) for r in rows})

    ps.setup()
    import matplotlib.pyplot as plt
    cols = 2 if len(workloads) > 2 else len(workloads)
    nrows = (len(workloads) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(ps.WIDTHS["double"], 2.2 * nrows + 0.3), squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax in flat[len(workloads):]:
        ax.set_visible(False)
    for ax, w in zip(flat, workloads):
        lows = []
        for df in DATAFLOWS:
            for memory, style in (("hierarchy", "-"), ("ideal", "--")):
                pts = [(n, float(done[(w, df, memory, n)]["cycles"])) for n in sizes if (w, df, memory, n) in done]
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=COLORS[df], marker="o",
                            markersize=2.5, label=df if memory == "hierarchy" else None)
                    lows.append(min(p[1] for p in pts))
        for r in failed:
            if r["workload"] == w:
                ax.plot([int(r["array.size"])], [min(lows) / 2 if lows else 1], "x", color="red", markersize=5)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(sizes)
        ax.set_xticklabels([str(n) for n in sizes])
        ax.set_title(TITLES[w])
        ax.set_xlabel("array side (PEs)")
        ax.grid(True, which="major")
    for row in axes:
        row[0].set_ylabel("cycles")
    handles, labels = axes[0][0].get_legend_handles_labels()
    from matplotlib.lines import Line2D
    handles += [Line2D([], [], color="black", linestyle="-"), Line2D([], [], color="black", linestyle="--")]
    labels += ["memory: hierarchy", "memory: ideal"]
    fig.legend(handles, labels, loc="lower center", ncol=6, bbox_to_anchor=(0.5, -0.06 / nrows))
    if failed:
        sc.failed_note(fig, failed, ["workload", "array.size", "dataflow", "memory"])
    fig.tight_layout()
    ps.save(fig, a.out)

    lines = ["| workload | dataflow | " + " | ".join("%d²" % n for n in sizes) +
             " | memory's cost at %d² | stall at %d² |" % (sizes[-1], sizes[-1]),
             "|---|---|" + "---|" * len(sizes) + "---|---|"]
    for w in workloads:
        for df in DATAFLOWS:
            cells = []
            for n in sizes:
                r = done.get((w, df, "hierarchy", n))
                cells.append("{:,}".format(int(float(r["cycles"]))) if r else "failed")
            h, i = done.get((w, df, "hierarchy", sizes[-1])), done.get((w, df, "ideal", sizes[-1]))
            cost = "%+.0f %%" % (100 * (float(h["cycles"]) / float(i["cycles"]) - 1)) if h and i else "-"
            stall = "-"
            if h:
                st = {k[len("stalls."):]: float(v) for k, v in h.items() if k.startswith("stalls.") and v not in ("", None)}
                total = float(h.get("stall_cycles") or 0)
                if total > 0 and st:
                    top = max(st, key=st.get)
                    stall = "%s (%.0f %% of cycles)" % (top, 100 * total / float(h["cycles"]))
            lines.append("| %s | %s | %s | %s | %s |" % (TITLES[w], df, " | ".join(cells), cost, stall))
    text = "\n".join(lines) + "\n"
    if a.table:
        with open(a.table, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
