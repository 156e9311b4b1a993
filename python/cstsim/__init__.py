"""cstsim from Python: run a point, run a sweep, load what they wrote.

The package drives the ``cstsim`` binary (it never re-implements the simulator) and reads its
outputs: ``summary.json``, ``report.json``, ``layers.csv`` of a run; ``results.csv`` and
``results.jsonl`` of a sweep. Tables are pandas DataFrames (pandas is a dependency).

    import cstsim
    run = cstsim.run("configs/arch/npu-128-hbm3.yaml", "configs/workloads/gemm-512.yaml", "out/g512",
                     sets={"hbm.max_outstanding": 128})
    run.summary["total"]["cycles"], run.layers()
    sweep = cstsim.sweep("configs/sweeps/ci-small.yaml", "out/ci-small", jobs=2)
    sweep.results()                      # one row per point
    sweep = cstsim.sweep({"name": "s", "base": "configs/arch/npu-128.yaml",
                          "workloads": ["configs/workloads/gemm-512.yaml"],
                          "grid": {"array.rows": [64, 128]}}, "out/s")   # a spec as a dict

Install: ``pip install .`` at the top of the source tree (``python/README.md``).
"""
from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union

__all__ = ["CstsimError", "Run", "Sweep", "binary", "run", "sweep", "load_run", "load_sweep", "__version__"]


def _source_dir() -> Optional[Path]:
    """The source tree: the one this file lies in, or the one an installed wheel was built from."""
    here = Path(__file__).resolve().parents[2]
    if (here / "CMakeLists.txt").is_file():
        return here
    try:
        from . import _build_info  # written into the wheel by the build backend
    except ImportError:
        return None
    return Path(_build_info.source_dir)


def _version() -> str:
    try:
        from . import _build_info
        return _build_info.version
    except ImportError:
        pass
    import re
    cmake = (Path(__file__).resolve().parents[2] / "CMakeLists.txt").read_text()
    return re.search(r"project\(\s*cstsim\s+VERSION\s+([0-9][0-9.]*)", cmake).group(1)


__version__ = _version()

PathLike = Union[str, os.PathLike]


class CstsimError(RuntimeError):
    """cstsim exited with an error; ``status`` is its exit status (2: bad input), ``stderr`` its message."""

    def __init__(self, args: List[str], status: int, stderr: str):
        self.args_ = args
        self.status = status
        self.stderr = stderr
        super().__init__(f"cstsim exited with status {status}: {stderr.strip()}")


def binary() -> str:
    """The cstsim binary: $CSTSIM; else the environment's own bin/cstsim (a venv's, or the prefix
    `cmake --install` wrote to); else the build tree the package came from (build/cstsim); else
    cstsim on PATH."""
    env = os.environ.get("CSTSIM")
    if env:
        return env
    candidates = [Path(sys.prefix) / "bin" / "cstsim"]
    source = _source_dir()
    if source is not None:
        candidates.append(source / "build" / "cstsim")
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return str(c)
    found = shutil.which("cstsim")
    if found:
        return found
    raise CstsimError(["cstsim"], 127, "no cstsim binary: set CSTSIM, build the tree (make build) or put it on PATH")


def _call(args: List[str]) -> subprocess.CompletedProcess:
    full = [binary()] + args
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    done = subprocess.run(full, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise CstsimError(full, done.returncode, done.stderr)
    return done


def _table(rows: List[Dict[str, Any]]):
    try:
        import pandas
    except ImportError as e:  # a dependency of the package: only a hand-made path lacks it
        raise ImportError("cstsim's tables are pandas DataFrames: install pandas (pip install pandas; "
                          "Debian: apt install python3-pandas)") from e
    return pandas.DataFrame(rows)


def _number(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _read_csv(path: Path) -> List[Dict[str, Any]]:
    with open(path, newline="") as f:
        return [{k: _number(v) for k, v in row.items()} for row in csv.DictReader(f)]


class Run:
    """A run directory: summary.json (always), report.json (with a trace), layers.csv."""

    def __init__(self, directory: PathLike):
        self.dir = Path(directory)
        if not (self.dir / "summary.json").is_file():
            raise FileNotFoundError(f"{self.dir} is not a cstsim run directory (no summary.json)")
        self.summary: Dict[str, Any] = json.loads((self.dir / "summary.json").read_text())
        report = self.dir / "report.json"
        self.report: Optional[Dict[str, Any]] = json.loads(report.read_text()) if report.is_file() else None

    def layers(self):
        """One row per layer (summary.json's layers, nested figures flattened with dots)."""
        return _table([_flatten(layer) for layer in self.summary.get("layers", [])])

    def vector_kernels(self):
        """One row per vector-unit kernel (summary.json's vector.kernels); empty without a vector unit."""
        return _table([_flatten(k) for k in self.summary.get("vector", {}).get("kernels", [])])

    @property
    def cycles(self) -> int:
        return int(self.summary["total"]["cycles"])


class Sweep:
    """A sweep directory: results.csv (one row per point) and each point's run directory."""

    def __init__(self, directory: PathLike):
        self.dir = Path(directory)

    def results(self):
        path = self.dir / "results.csv"
        if not path.is_file():
            raise FileNotFoundError(f"{path}: collect the sweep first (cstsim sweep collect {self.dir})")
        return _table(_read_csv(path))

    def points(self) -> List[Run]:
        points = self.dir / "points"
        return [Run(p) for p in sorted(points.iterdir(), key=lambda p: p.name) if (p / "summary.json").is_file()]


def _flatten(d: Mapping[str, Any], prefix: str = "") -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def _sets(sets: Optional[Mapping[str, Any]]) -> List[str]:
    args: List[str] = []
    for k, v in (sets or {}).items():
        args += ["--set", f"{k}={v}"]
    return args


def run(arch: PathLike, workload: PathLike, out: PathLike, sets: Optional[Mapping[str, Any]] = None,
        trace: bool = True, force: bool = False, extra: Iterable[str] = (), train: Optional[str] = None,
        sparsity: Optional[str] = None) -> Run:
    """Runs one point (cstsim run) into `out` and loads it. `sets`: --set overrides, {key: value};
    `train`: the workload's training step with this recompute policy (none, selective, full);
    `sparsity`: "2:4" weights (run --sparsity). `out` is replaced only if it is a run directory
    (as the CLI does); `force=True` passes --force, which replaces any directory that holds no input."""
    args = ["run", "-q", "--arch", str(arch), "--workload", str(workload), "--out", str(out)] + _sets(sets)
    if train:
        args += ["--train", train]
    if sparsity:
        args += ["--sparsity", sparsity]
    if not trace:
        args.append("--no-trace")
    if force:
        args.append("--force")
    _call(args + list(extra))
    return Run(out)


# Keys of a sweep spec that name files: relative to the spec file in a YAML spec, relative to the
# current directory in a dict (configs/README.md, "Sweeps").
_SPEC_PATHS = ("base", "workloads")


def _spec_file(spec: Mapping[str, Any], directory: Path) -> Path:
    """A dict spec written as a file (JSON, which YAML reads), its paths made absolute."""
    spec = dict(spec)
    for key in _SPEC_PATHS:
        if key in spec:
            v = spec[key]
            spec[key] = [str(Path(p).resolve()) for p in v] if isinstance(v, (list, tuple)) else str(Path(v).resolve())
    if isinstance(spec.get("run"), Mapping) and "energy" in spec["run"]:
        spec["run"] = dict(spec["run"], energy=str(Path(spec["run"]["energy"]).resolve()))
    path = directory / f"{spec.get('name', 'sweep')}.yaml"
    path.write_text(json.dumps(spec, indent=1) + "\n")
    return path


def sweep(spec: Union[PathLike, Mapping[str, Any]], out: PathLike, jobs: Optional[int] = None,
          timeout: Optional[float] = None) -> Sweep:
    """Runs a sweep locally (cstsim sweep SPEC --out OUT), resuming one already begun, and loads it.
    `spec`: a spec file, or the spec itself as a dict (the keys of a spec file; its paths relative
    to the current directory)."""
    if isinstance(spec, Mapping):
        with tempfile.TemporaryDirectory(prefix="cstsim-spec-") as d:
            return sweep(_spec_file(spec, Path(d)), out, jobs, timeout)
    args = ["sweep", str(spec), "--out", str(out)]
    if jobs:
        args += ["--jobs", str(jobs)]
    if timeout:
        args += ["--timeout", str(timeout)]
    _call(args)
    return Sweep(out)


def load_run(directory: PathLike) -> Run:
    return Run(directory)


def load_sweep(directory: PathLike) -> Sweep:
    return Sweep(directory)
