"""The Python entry, end to end against the built binary (ctest runs it: Python.Package)."""
import json
import os
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
import cstsim  # noqa: E402


class PackageTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_run_loads_summary_report_and_layers(self):
        r = cstsim.run(ROOT / "configs/arch/npu-128.yaml", ROOT / "configs/sweeps/workloads/tiny-gemm.yaml", self.out / "r")
        summary = json.loads((self.out / "r" / "summary.json").read_text())
        self.assertEqual(r.cycles, summary["total"]["cycles"])
        self.assertIsNotNone(r.report)
        layers = r.layers()
        rows = layers.to_dict("records") if hasattr(layers, "to_dict") else layers
        self.assertEqual(len(rows), len(summary["layers"]))
        self.assertEqual(rows[0]["name"], summary["layers"][0]["name"])
        self.assertEqual(rows[0]["stalls.hbm"], 0)  # nested figures flattened with dots

    def test_training_step_and_precision(self):
        w = ROOT / "configs/sweeps/workloads/tiny-gemm.yaml"
        fwd = cstsim.run(ROOT / "configs/arch/npu-128.yaml", w, self.out / "f", trace=False)
        step = cstsim.run(ROOT / "configs/arch/npu-128.yaml", w, self.out / "t", trace=False, train="none",
                          sets={"precision.operand": "int4"})
        self.assertEqual(step.summary["training"]["recompute"], "none")
        self.assertEqual(step.summary["total"]["macs"], 3 * fwd.summary["total"]["macs"])
        self.assertEqual(step.summary["arch"]["operand"], "int4")

    def test_sets_move_the_result_and_bad_input_raises(self):
        small = cstsim.run(ROOT / "configs/arch/npu-128.yaml", ROOT / "configs/sweeps/workloads/tiny-gemm.yaml",
                           self.out / "a", sets={"array.rows": 8, "array.cols": 8}, trace=False)
        large = cstsim.run(ROOT / "configs/arch/npu-128.yaml", ROOT / "configs/sweeps/workloads/tiny-gemm.yaml",
                           self.out / "b", sets={"array.rows": 32, "array.cols": 32}, trace=False)
        self.assertIsNone(small.report)
        self.assertGreater(small.cycles, large.cycles)
        with self.assertRaises(cstsim.CstsimError) as e:
            cstsim.run(ROOT / "configs/arch/npu-128.yaml", ROOT / "configs/sweeps/workloads/tiny-gemm.yaml",
                       self.out / "c", sets={"array.rows": 0})
        self.assertEqual(e.exception.status, 2)
        self.assertIn("array.rows", e.exception.stderr)

    def test_run_never_replaces_a_directory_it_did_not_make(self):
        arch, w = ROOT / "configs/arch/npu-128.yaml", ROOT / "configs/sweeps/workloads/tiny-gemm.yaml"
        proj = self.out / "proj"
        proj.mkdir()
        (proj / "thesis.tex").write_text("thesis draft\n")
        with self.assertRaises(cstsim.CstsimError) as e:
            cstsim.run(arch, w, proj, trace=False)  # no --force by default
        self.assertEqual(e.exception.status, 2)
        self.assertIn("not a cstsim run directory", e.exception.stderr)
        self.assertEqual((proj / "thesis.tex").read_text(), "thesis draft\n")
        # A run directory of its own is replaced without force; force=True replaces the rest.
        cstsim.run(arch, w, self.out / "r", trace=False)
        self.assertGreater(cstsim.run(arch, w, self.out / "r", trace=False).cycles, 0)
        cstsim.run(arch, w, proj, trace=False, force=True)
        self.assertFalse((proj / "thesis.tex").exists())

    def test_sweep_results_have_a_row_per_point(self):
        s = cstsim.sweep(ROOT / "configs/sweeps/ci-small.yaml", self.out / "s", jobs=2)
        results = s.results()
        rows = results.to_dict("records") if hasattr(results, "to_dict") else results
        self.assertEqual(len(rows), 8)
        self.assertEqual(len(s.points()), 8)
        self.assertEqual(sorted({r["dataflow"] for r in rows}), ["os", "ws"])


if __name__ == "__main__":
    unittest.main()
