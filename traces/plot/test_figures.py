#!/usr/bin/python3
"""The sweep and run figures as a reviewer reads them (ctest: Plot.Figures), on a two-workload
sweep with failed points and on a run whose static power no action carries:

- the Pareto figure has one panel and one front per workload, the front each panel counts is the
  one the rule gives on that workload's points alone, and the failed points are counted;
- the line figure keeps a line's style when all its points failed, marks every failed point, and
  names arrays as R x C and energy in a prefixed unit;
- a dataflow has one colour and marker in every figure;
- no two labels of an axes overprint (their boxes, as drawn);
- the energy bars add up to E_gross, static power included; the stall bars, layers and vector
  kernels in the order they ran, add up to the run's cycles.
"""
import csv
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import paperstyle as ps  # noqa: E402
import plot_sweep_common as sc  # noqa: E402

WORKLOADS = ["bert", "resnet50"]
SIZES = [32, 64, 128, 256]
DATAFLOWS = ["ws", "os", "is"]
FAILED = {("bert", "os", s) for s in SIZES} | {("resnet50", "ws", 256)}


def sweep_dir(root):
    """A results.csv as cstsim sweep collect writes it (the columns the figures read)."""
    cols = ["index", "status", "workload", "batch", "array.rows", "array.cols", "dataflow", "hash", "cycles",
            "energy.E_gross", "arch.pes", "arch.rows", "arch.cols", "arch.name", "arch.memory", "arch.dataflow"]
    rows = []
    for w, wl in enumerate(WORKLOADS):
        for s in SIZES:
            for d, df in enumerate(DATAFLOWS):
                done = (wl, df, s) not in FAILED
                # cycles fall with the array, energy grows with it; dataflows trade the two
                cycles = (4e6 + 1e6 * w) * (32 / s) ** 1.6 * (1 + 0.15 * d)
                energy = (5e-3 + 1e-3 * w) * (1 + 0.1 * (s / 32) ** 0.5) * (1 - 0.05 * d)
                rows.append({"index": len(rows), "status": "done" if done else "failed", "workload": wl, "batch": 1,
                             "array.rows": s, "array.cols": s, "dataflow": df, "hash": "h%d" % len(rows),
                             "cycles": "%d" % cycles if done else "", "energy.E_gross": "%.6g" % energy if done else "",
                             "arch.pes": s * s if done else "", "arch.rows": s if done else "",
                             "arch.cols": s if done else "", "arch.name": "npu-128-hbm3", "arch.memory": "hierarchy",
                             "arch.dataflow": df if done else ""})
    with open(os.path.join(root, "results.csv"), "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=cols)
        wr.writeheader()
        wr.writerows(rows)
    with open(os.path.join(root, "results.columns.csv"), "w", newline="") as f:
        f.write("column,unit,meaning\ncycles,cycle,x\nenergy.E_gross,J,x\narch.pes,PE,x\n")
    return rows


def draw(module, argv):
    """Runs a plot script's main() with `argv`; returns the figures it saved, left open."""
    figures = []
    save, close = ps.save, ps.plt.close

    def keep(fig, prefix):
        figures.append(fig)
        return save(fig, prefix)

    ps.save, ps.plt.close = keep, (lambda *_, **__: None)
    old_argv = sys.argv
    try:
        sys.argv = [module.__name__] + argv
        module.main()
    finally:
        sys.argv = old_argv
        ps.save, ps.plt.close = save, close
    return figures


def dominates(a, b):
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def legend_texts(fig):
    return [t.get_text() for ax in fig.axes for leg in [ax.get_legend()] if leg for t in leg.get_texts()]


def legend_styles(fig):
    """{label: (colour, marker)} of every legend entry with a marker."""
    import matplotlib.colors as mc
    out = {}
    for ax in fig.axes:
        leg = ax.get_legend()
        if not leg:
            continue
        for h, t in zip(leg.legend_handles if hasattr(leg, "legend_handles") else leg.legendHandles, leg.get_texts()):
            if hasattr(h, "get_marker") and h.get_marker() not in (None, "None", ""):
                out[t.get_text()] = (mc.to_hex(h.get_color()).lower(), h.get_marker())
    return out


class Figures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        ps.setup()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = cls.tmp.name
        cls.rows = sweep_dir(cls.dir)
        import plot_pareto
        import plot_sweep_lines
        cls.pareto = draw(plot_pareto, [cls.dir, "--out", os.path.join(cls.dir, "pareto")])[0]
        cls.lines = draw(plot_sweep_lines, [cls.dir, "--out", os.path.join(cls.dir, "lines")])[0]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_pareto_has_a_front_per_workload_and_counts_the_failed(self):
        panels = [ax for ax in self.pareto.axes if ax.get_title()]
        self.assertEqual(len(panels), len(WORKLOADS))
        for ax, wl in zip(panels, sorted(WORKLOADS)):
            done = [r for r in self.rows if r["workload"] == wl and r["status"] == "done"]
            pts = [(float(r["cycles"]), float(r["energy.E_gross"])) for r in done]
            front = [p for p in pts if not any(dominates(q, p) for q in pts)]
            failed = sum(1 for r in self.rows if r["workload"] == wl and r["status"] != "done")
            self.assertTrue(ax.get_title().startswith("%s: %d of %d non-dominated; %d failed"
                                                      % (wl, len(front), len(done), failed)), ax.get_title())
        self.assertIn("failed: %d (listed below)" % len(FAILED), legend_texts(self.pareto))

    def test_lines_keep_every_dataflow_and_mark_every_failed_point(self):
        self.assertEqual([t for t in legend_texts(self.lines) if t in DATAFLOWS], ["ws", "os", "is"])
        self.assertIn("failed (%d)" % len(FAILED), legend_texts(self.lines))
        import matplotlib.colors as mc
        crosses = 0
        for ax in self.lines.axes:
            for c in ax.collections:
                if c.get_offsets().shape[0] and mc.to_hex(c.get_edgecolor()[0] if len(c.get_edgecolor()) else
                                                          c.get_facecolor()[0]) == sc.FAILED_COLOR.lower():
                    crosses += c.get_offsets().shape[0]
        self.assertEqual(crosses, 2 * len(FAILED))  # each failed point on both metric rows
        ticks = [t.get_text() for t in self.lines.axes[-1].get_xticklabels()]
        self.assertEqual(ticks, ["%dx%d" % (s, s) for s in SIZES])
        self.assertTrue(any("(mJ)" in ax.get_ylabel() for ax in self.lines.axes), [ax.get_ylabel() for ax in self.lines.axes])
        self.assertIn("memory hierarchy", self.lines._suptitle.get_text())

    def test_a_dataflow_has_one_style_in_every_figure(self):
        for fig in (self.pareto, self.lines):
            styles = legend_styles(fig)
            for df in DATAFLOWS:
                color, marker = sc.DATAFLOW_STYLE[df]
                self.assertEqual(styles[df], (color.lower(), marker), (fig._suptitle.get_text(), df))

    def test_no_label_overprints_another(self):
        for fig in (self.pareto, self.lines):
            self.assertEqual(sc.overlapping_texts(fig), [])

    def test_layer_names_over_r_of_t_never_overprint(self):
        import plot_rt
        import selftest
        run = os.path.join(self.dir, "rt-run")
        end = 4000
        _, records = selftest.write_trace(run, end, 1e9, 7)
        tdir = os.path.join(run, "trace")
        # 30 layers, long and short, with names as wide as a transformer block's
        bounds = [0]
        for k in range(30):
            bounds.append(bounds[-1] + (400 if k % 10 == 0 else 90))
        bounds[-1] = end
        with open(os.path.join(tdir, "layers.csv"), "w") as f:
            f.write("layer,name,start_cycle,end_cycle\n")
            for k in range(30):
                f.write("%d,b0.%s_proj_%d,%d,%d\n" % (k, "qkvo"[k % 4], k, bounds[k], bounds[k + 1] - 1))
        selftest.write_manifest(tdir, end, len(records))
        fig = draw(plot_rt, [run, "--out", os.path.join(self.dir, "rt")])[0]
        names = [t for t in fig.axes[0].texts if t.get_text().startswith("b0.")]
        self.assertGreater(len(names), 0)
        self.assertLess(len(names), 30)  # not every name fits over its layer at this width
        self.assertEqual(sc.overlapping_texts(fig), [])

    def test_energy_bars_add_up_to_the_total_with_static_power(self):
        run = os.path.join(self.dir, "run")
        os.makedirs(run)
        arch = {"name": "tpu-v1", "rows": 256, "cols": 256, "dataflow": "ws", "memory": "channel", "operand": "int8"}
        layers = [{"name": "l%d" % i, "ideal_cycles": 1000, "stalls": {"hbm": 10 * i}, "utilization": 0.5,
                   "mapping_efficiency": 0.9, "start_cycle": 2000 * i} for i in range(3)]
        kernels = [{"name": "relu%d" % i, "compute_cycles": 300, "stalls": {"hbm": 7, "noc_bandwidth": 50},
                    "start_cycle": 2000 * i + 1500} for i in range(2)]
        cycles = 3 * 1000 + 10 + 20 + 2 * (300 + 57)
        json.dump({"arch": arch, "workload": {"name": "w"}, "layers": layers, "vector": {"kernels": kernels},
                   "total": {"cycles": cycles}}, open(os.path.join(run, "summary.json"), "w"))
        q = lambda v: {"value": v, "unit": "J"}  # noqa: E731
        energy = {"E_gross": q(7.459e-3), "E_base": q(5.56e-3), "E_marg": q(1.899e-3),
                  "E_marg_by_action": {"mac.int8.executed": q(1.2e-3), "sram.read": q(0.6e-3), "hbm.read": q(0.099e-3)},
                  "E_base_by_action": {"hbm.background": q(0.06e-3)}}
        report = {"total": {"energy": energy}, "energy_table": {"name": "tpu-v1-28nm"},
                  "layers": [{"name": l["name"], "C_P": {"B_M": {"reg": {"value": 1e6}, "sram": {"value": 3e5},
                                                                  "hbm": {"value": 2e5}}}} for l in layers]}
        json.dump(report, open(os.path.join(run, "report.json"), "w"))
        import plot_breakdown
        figs = draw(plot_breakdown, [run, "--out", os.path.join(run, "b")])
        fig = next(f for f in figs if f._suptitle and f._suptitle.get_text().startswith("Energy"))
        bars = fig.axes[0].patches
        self.assertIn("mJ", fig.axes[0].get_xlabel())
        self.assertAlmostEqual(sum(b.get_width() for b in bars), 7.459, places=6)
        self.assertTrue(fig._suptitle.get_text().startswith("Energy: E_gross 7.46 mJ"), fig._suptitle.get_text())
        stalls = next(f for f in figs if f.axes[0].get_title().startswith("Cycles per step"))
        self.assertEqual([t.get_text() for t in stalls.axes[0].get_yticklabels()], ["l0", "relu0", "l1", "relu1", "l2"])
        self.assertEqual(sum(b.get_width() for b in stalls.axes[0].patches), cycles)  # the steps make up the run
        traffic = next(f for f in figs if f.axes[0].get_title().startswith("Traffic"))
        self.assertEqual(traffic.axes[0].get_xscale(), "linear")


if __name__ == "__main__":
    unittest.main()
