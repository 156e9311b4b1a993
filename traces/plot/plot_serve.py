#!/usr/bin/python3
"""Figures of a serving run (cstsim serve): PREFIX-latency (CDFs of TTFT, TPOT and end-to-end
latency), PREFIX-kv (the KV cache's bytes and the requests running and waiting over time, with
preemptions marked), PREFIX-throughput (tokens per second over time, prefill and decode), each
PNG + PDF. The caption names the model, the arch, the requests and how iterations were priced.

  plot_serve.py RUN --out PREFIX [--width single|double|INCHES]
"""
import argparse
import csv
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paperstyle  # noqa: E402

plt = paperstyle.plt


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def time_axis(seconds):
    """A unit that keeps the run's span readable: (scale, label)."""
    if seconds >= 10:
        return 1.0, "s"
    if seconds >= 0.01:
        return 1e3, "ms"
    return 1e6, "µs"


def cdf(ax, values, label, color, scale):
    v = sorted(values)
    if not v:
        return
    y = [(i + 1) / len(v) for i in range(len(v))]
    ax.step([x * scale for x in v], y, where="post", label=label, color=color)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run")
    ap.add_argument("--out", required=True)
    paperstyle.add_width_arg(ap, "double")
    a = ap.parse_args()
    paperstyle.setup()
    s = json.load(open(os.path.join(a.run, "summary.json")))
    reqs = rows(os.path.join(a.run, "requests.csv"))
    its = rows(os.path.join(a.run, "iterations.csv"))
    pricing = "parts on a grid (estimate)" if s["pricing"]["estimate"] else "whole iterations simulated"
    caption = "%s on %s; %d requests; %s pricing" % (s["model"]["name"], s["arch"]["name"], s["requests"]["count"], pricing)
    colors = paperstyle.CLASS_COLORS

    # Latency CDFs: each on its own axis (TPOT is orders of magnitude below TTFT).
    fig, axes = paperstyle.figure(a.width, 2.0, ncols=3)
    for ax, key, name, color in ((axes[0], "ttft_s", "time to first token", colors["C"]),
                                 (axes[1], "tpot_s", "time per output token", colors["M"]),
                                 (axes[2], "latency_s", "end-to-end latency", colors["N"])):
        v = [float(r[key]) for r in reqs if r[key] != ""]
        scale, unit = time_axis(max(v) if v else 0)
        cdf(ax, v, name, color, scale)
        for p, style in ((50, ":"), (99, "--")):
            x = s[key][("p%d" % p)] * scale
            ax.axvline(x, color="grey", linestyle=style, linewidth=0.6)
            ax.annotate("p%d" % p, (x, 0.05 if p == 50 else 0.2), fontsize=7, color="grey", xytext=(2, 0),
                        textcoords="offset points")
        ax.set_xlabel("%s (%s)" % (name, unit))
        ax.set_ylim(0, 1.02)
        ax.grid(True)
    axes[0].set_ylabel("fraction of requests")
    fig.suptitle(caption, fontsize=8)
    fig.tight_layout()
    paperstyle.save(fig, a.out + "-latency")

    # KV cache and queue over time.
    end = [float(r["start_s"]) + float(r["seconds"]) for r in its]
    scale, unit = time_axis(end[-1] if end else 0)
    t = [x * scale for x in end]
    fig, ax = paperstyle.figure(a.width, 2.2)
    cap = s["kv_cache"]["bytes"]
    kv_scale, kv_unit = (1 / 2**30, "GiB") if cap >= 2**30 else (1 / 2**20, "MiB")
    ax.step(t, [float(r["kv_bytes"]) * kv_scale for r in its], where="pre", color=colors["M"], label="KV cache in use")
    ax.axhline(cap * kv_scale, color=colors["M"], linestyle="--", linewidth=0.6, label="KV capacity")
    pre = [x for x, r in zip(t, its) if int(r["preempted"]) > 0]
    if pre:
        ax.plot(pre, [cap * kv_scale] * len(pre), linestyle="none", marker="v", markersize=3, color="black",
                label="preemption (%d)" % s["preemptions"])
    ax.set_xlabel("time (%s)" % unit)
    ax.set_ylabel("KV cache (%s)" % kv_unit)
    ax.set_ylim(0, cap * kv_scale * 1.08)
    ax2 = ax.twinx()
    ax2.step(t, [int(r["running"]) for r in its], where="pre", color=colors["C"], label="running")
    ax2.step(t, [int(r["waiting"]) for r in its], where="pre", color=colors["S"], label="waiting")
    ax2.set_ylabel("requests")
    ax2.set_ylim(bottom=0)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="upper center", ncol=5, bbox_to_anchor=(0.5, -0.22))
    ax.set_title(caption, fontsize=8)
    paperstyle.save(fig, a.out + "-kv")

    # Throughput over time: tokens processed per window of ~1/50 of the run.
    fig, ax = paperstyle.figure(a.width, 2.0)
    span = end[-1] if end else 0
    bins = 50
    w = span / bins if span > 0 else 1
    pre_tok, dec_tok = [0.0] * bins, [0.0] * bins
    for r, e in zip(its, end):
        k = min(int((e - float(r["seconds"]) / 2) / w), bins - 1)
        pre_tok[k] += int(r["prefill_tokens"])
        dec_tok[k] += int(r["decode_tokens"])
    mid = [(k + 0.5) * w * scale for k in range(bins)]
    ax.stackplot(mid, [x / w for x in pre_tok], [x / w for x in dec_tok], labels=["prefill", "decode"],
                 colors=[colors["C"], colors["M"]], alpha=0.85)
    ax.set_xlabel("time (%s)" % unit)
    ax.set_ylabel("tokens/s")
    ax.set_xlim(0, span * scale)
    ax.legend(loc="upper right")
    ax.set_title("%s; mean %.0f output tokens/s" % (caption, s["throughput"]["output_tokens_per_s"]), fontsize=8)
    ax.grid(True)
    paperstyle.save(fig, a.out + "-throughput")


if __name__ == "__main__":
    main()
