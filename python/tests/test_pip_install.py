"""`pip install .` into a fresh virtual environment, then the package used from outside the tree
(ctest: Python.PipInstall). The environment sees the system's site packages, where Debian's
python3-pandas (the package's one dependency) is; `--no-index`: nothing may come from an index,
so the in-tree build backend must need nothing."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class PipInstallTest(unittest.TestCase):
    def test_install_then_import_version_binary_and_a_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            venv = Path(tmp) / "venv"
            subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
            py = venv / "bin" / "python"
            done = subprocess.run([str(py), "-m", "pip", "install", "--no-index", "-q", str(ROOT)],
                                  capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            script = (
                "import json, sys, cstsim\n"
                "r = cstsim.run(sys.argv[1] + '/configs/arch/npu-128.yaml', sys.argv[1] + '/configs/sweeps/workloads/tiny-gemm.yaml',"
                " sys.argv[2], trace=False)\n"
                "print(json.dumps({'version': cstsim.__version__, 'file': cstsim.__file__, 'cycles': r.cycles,"
                " 'frame': type(r.layers()).__name__}))\n")
            env = dict(os.environ)
            env.pop("CSTSIM", None)  # the package must find the binary itself: the tree's build/, or PATH
            env.pop("PYTHONPATH", None)
            if os.environ.get("CSTSIM_TEST_BINARY"):  # the build ctest runs in (build-asan has no build/cstsim)
                env["PATH"] = str(Path(os.environ["CSTSIM_TEST_BINARY"]).parent) + os.pathsep + env.get("PATH", "")
            out = subprocess.run([str(py), "-c", script, str(ROOT), str(Path(tmp) / "run")], capture_output=True,
                                 text=True, cwd=tmp, env=env)
            self.assertEqual(out.returncode, 0, out.stderr)
            got = json.loads(out.stdout)
            cmake = (ROOT / "CMakeLists.txt").read_text()
            self.assertIn(f"project(cstsim VERSION {got['version']} ", cmake)
            self.assertTrue(got["file"].startswith(str(venv)), got["file"])  # the installed copy, not the tree's
            self.assertGreater(got["cycles"], 0)
            self.assertEqual(got["frame"], "DataFrame")


if __name__ == "__main__":
    unittest.main()
