"""Tables and the figure of the spacetime-shape study from its runs (run.sh)."""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = sys.argv[1]
CHIPS = [1, 2, 4, 8]


def load(case, n):
    s = json.load(open(f"{out}/{case}-{n}/summary.json"))
    r = json.load(open(f"{out}/{case}-{n}/report.json"))["total"]
    c = s.get("chips")
    wall = c["wall_cycles"] if c else s["total"]["cycles"]
    comm = c["per_chip"][0]["collective_cycles"] if c else 0
    return {
        "chips": n,
        "T_wall_ms": r["Theta_CST"]["T_wall"]["value"] * 1e3,
        "wall_cycles": wall,
        "collective_cycles": comm,
        "V_C_PE_s": r["V_CST"]["V_C"]["PE_s"]["value"],
        "D_peak": r["Theta_CST"]["D_peak"]["value"],
        "B_N_interconnect": c["Gamma_comm"]["B_N_bytes"] if c else 0,
        "syncs": c["Gamma_comm"]["synchronizations"] if c else 0,
        "E_mJ": r["energy"]["E_gross"]["value"] * 1e3,
        "macs": c["macs"] if c else s["total"]["macs"],
        "pes": s["arch"]["rows"] * s["arch"]["cols"] * s["arch"]["clusters"],  # one chip's
    }


cases = {case: [load(case, n) for n in CHIPS] for case in ("llama", "small")}
for case, rows in cases.items():
    print(f"\n{case}: chips | T_wall ms | collective cycles (chip 0) | V_C PE.s | D_peak | interconnect B_N bytes | "
          "collectives | E_gross mJ | MACs")
    for r in rows:
        print(f"{r['chips']} | {r['T_wall_ms']:.4f} | {r['collective_cycles']} | {r['V_C_PE_s']:.4f} | "
              f"{r['D_peak']:.0f} | {r['B_N_interconnect']} | {r['syncs']} | {r['E_mJ']:.4f} | {r['macs']}")

# C. One decode step of a batch of 8 on one chip and on 4 chips split three ways.
SPLITS = ["one", "tp4", "dp4", "pp4m1", "pp4"]
splits = {}
for name in SPLITS:
    s = json.load(open(f"{out}/decode-{name}/summary.json"))
    r = json.load(open(f"{out}/decode-{name}/report.json"))["total"]
    c = s.get("chips")
    row = {"T_wall_us": r["Theta_CST"]["T_wall"]["value"] * 1e6, "E_mJ": r["energy"]["E_gross"]["value"] * 1e3,
           "B_N_interconnect": c["Gamma_comm"]["B_N_bytes"] if c else 0, "macs": c["macs"] if c else s["total"]["macs"]}
    if c:  # chip 0's time in its parts, and (pipeline) the idle shares against GPipe's
        p0 = c["per_chip"][0]
        for part in ("T_serial", "T_parallel", "T_comm", "T_sync"):
            row[part + "_cycles"] = p0[part + "_cycles"]
        if "pipeline" in c:
            row["idle"] = [round(st["idle_fraction"], 3) for st in c["pipeline"]["stages"]]
            row["gpipe_bubble"] = round(c["pipeline"]["gpipe_bubble"], 3)
    splits[name] = row
print("\ndecode b8, 4 chips: split | T_wall us | chip 0: T_serial / T_parallel / T_comm / T_sync cycles | "
      "interconnect B_N bytes | E_gross mJ | MACs | stage idle (GPipe bubble)")
for name, r in splits.items():
    parts = " / ".join(str(r.get(p + "_cycles", "-")) for p in ("T_serial", "T_parallel", "T_comm", "T_sync"))
    idle = f"{r['idle']} ({r['gpipe_bubble']})" if "idle" in r else "-"
    print(f"{name} | {r['T_wall_us']:.1f} | {parts} | {r['B_N_interconnect']} | {r['E_mJ']:.3f} | {r['macs']} | {idle}")
cases["decode_splits"] = splits
json.dump(cases, open(f"{out}/spacetime-shape.json", "w"), indent=2)

plt.rcParams.update({"font.size": 8, "figure.dpi": 200})
fig, axes = plt.subplots(1, 2, figsize=(7.0, 2.6))
ax = axes[0]
llama = cases["llama"]
ax.plot(CHIPS, [r["T_wall_ms"] for r in llama], "o-", color="#0072B2", label="T_wall (ms)")
pes = llama[0]["pes"]
ax.plot(CHIPS, [r["V_C_PE_s"] * 1e3 / pes for r in llama], "s--", color="#009E73",
        label=f"V_C / {pes} PEs (ms)")
ax.set_xscale("log", base=2)
ax.set_xticks(CHIPS, [str(n) for n in CHIPS])
ax.set_xlabel("chips (tensor parallel)")
ax.set_ylabel("ms")
ax2 = ax.twinx()
ax2.plot(CHIPS, [r["B_N_interconnect"] / 2**20 for r in llama], "^:", color="#D55E00", label="interconnect B_N (MiB)")
ax2.set_ylabel("MiB on the links")
h1, l1 = ax.get_legend_handles_labels()
h2, l2 = ax2.get_legend_handles_labels()
ax.legend(h1 + h2, l1 + l2, fontsize=7, loc="upper center")
ax.set_title("A. Llama-2-7B block, S = 512, NVLink 4 switch", fontsize=8)
ax = axes[1]
small = cases["small"]
compute = [(r["wall_cycles"] - r["collective_cycles"]) / 1e3 for r in small]
comm = [r["collective_cycles"] / 1e3 for r in small]
x = range(len(CHIPS))
ax.bar(x, compute, color="#0072B2", label="compute (chip 0)")
ax.bar(x, comm, bottom=compute, color="#E69F00", label="all-reduces")
ax.set_xticks(list(x), [str(n) for n in CHIPS])
ax.set_xlabel("chips (tensor parallel)")
ax.set_ylabel("wall time (k cycles)")
ax.legend(fontsize=7)
ax.set_title("B. small GEMM chain, 16 GB/s ring, 2 us a hop", fontsize=8)
fig.text(0.5, 0.005, "npu-128-hbm3 (memory: hierarchy) in A, a 32 x 32 array (memory: ideal) in B; cstsim timing mode",
         ha="center", fontsize=7)
fig.tight_layout(rect=(0, 0.05, 1, 1))
for ext in ("png", "pdf"):
    fig.savefig(f"{out}/spacetime-shape.{ext}")
print(f"\nwrote {out}/spacetime-shape.png and .pdf")
