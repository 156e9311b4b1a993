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
        self.assertEqual(type(layers).__name__, "DataFrame")
        rows = layers.to_dict("records")
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
        self.assertEqual(type(results).__name__, "DataFrame")
        rows = results.to_dict("records")
        self.assertEqual(len(rows), 8)
        self.assertEqual(len(s.points()), 8)
        self.assertEqual(sorted({r["dataflow"] for r in rows}), ["os", "ws"])

    def test_a_sweep_given_as_a_dict_runs_as_its_file_does(self):
        spec = {"name": "dict-sweep", "base": str(ROOT / "configs/arch/npu-128.yaml"),
                "workloads": [os.path.relpath(ROOT / "configs/sweeps/workloads/tiny-gemm.yaml")],
                "grid": {"array.rows": [8, 16], "dataflow": ["ws", "os"]}}
        as_dict = cstsim.sweep(spec, self.out / "d").results()
        text = ("name: dict-sweep\nbase: " + str(ROOT / "configs/arch/npu-128.yaml") + "\nworkloads: [" +
                str(ROOT / "configs/sweeps/workloads/tiny-gemm.yaml") + "]\ngrid:\n  array.rows: [8, 16]\n"
                "  dataflow: [ws, os]\n")
        (self.out / "spec.yaml").write_text(text)
        as_file = cstsim.sweep(self.out / "spec.yaml", self.out / "f").results()
        key = ["array.rows", "dataflow"]
        self.assertEqual(len(as_dict), 4)
        self.assertEqual(as_dict.sort_values(key)["cycles"].tolist(), as_file.sort_values(key)["cycles"].tolist())

    def test_version_is_the_projects(self):
        self.assertIn(f"project(cstsim VERSION {cstsim.__version__} ", (ROOT / "CMakeLists.txt").read_text())


if __name__ == "__main__":
    unittest.main()
