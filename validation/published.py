"""What the studies share: rows of a published value against cstsim's (each study's results.csv)
and a run's energy at the chip's boundary."""
import csv
import json


class Results:
    def __init__(self):
        self.rows = []

    def row(self, what, published, unit, simulated, role):
        """`role`: calibration (a parameter was set on it), prediction, or what else it is."""
        self.rows.append([what, f"{published:g}", f"{simulated:.4g}", unit,
                          f"{100 * (simulated / published - 1):+.1f}", role])

    def write(self, out):
        with open(f"{out}/results.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["quantity", "published", "simulated", "unit", "error_pct", "role"])
            w.writerows(self.rows)
        for r in self.rows:
            print(f"{r[0]}: {r[2]} {r[3]} against {r[1]} ({r[4]} %, {r[5]})")


def chip_joules(run):
    """The run's energy less what it charged to DRAM: the chips' published powers exclude it."""
    e = json.load(open(f"{run}/report.json"))["total"]["energy"]
    return e["E_gross"]["value"] - sum(v["value"] for k, v in e["E_marg_by_action"].items() if k.startswith("hbm"))
