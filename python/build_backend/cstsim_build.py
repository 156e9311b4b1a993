"""The build backend of cstsim's Python package (PEP 517 and PEP 660), in the tree.

`pip install .` needs nothing from a package index: this backend has no build requirements
(standard library only), so it builds where PyPI cannot be reached. It packs python/cstsim into a
wheel, with the version of CMakeLists.txt's project() (one version for the binary and the package)
and the source tree the wheel came from (so the package finds build/cstsim there), and reads
name, summary, dependencies and Python version from pyproject.toml's [project] table.
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "cstsim"
TAG = "py3-none-any"


def _read_project():
    """pyproject.toml's [project] table: tomllib (Python 3.11+), else the flat keys this file uses."""
    text = (ROOT / "pyproject.toml").read_text()
    try:
        import tomllib
        return tomllib.loads(text)["project"]
    except ImportError:
        import ast
        table = text.split("[project]", 1)[1].split("\n[", 1)[0]
        project = {}
        for key, value in re.findall(r"^([\w-]+)\s*=\s*(.+)$", table, re.M):
            if not value.startswith("{"):
                project[key] = ast.literal_eval(value)
        return project


def _project():
    project = _read_project()
    cmake = (ROOT / "CMakeLists.txt").read_text()
    found = re.search(r"project\(\s*cstsim\s+VERSION\s+([0-9][0-9.]*)", cmake)
    if not found:
        raise RuntimeError("CMakeLists.txt: no `project(cstsim VERSION x.y.z ...)` to take the version from")
    return project, found.group(1)


def _metadata(project, version):
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {version}",
             f"Summary: {project.get('description', '')}"]
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    for dep in project.get("dependencies", []):
        lines.append(f"Requires-Dist: {dep}")
    lic = project.get("license", {})
    if isinstance(lic, dict) and "text" in lic:
        lines.append(f"License: {lic['text']}")
    readme = ROOT / "python" / "README.md"
    if readme.is_file():
        lines += ["Description-Content-Type: text/markdown", "", readme.read_text()]
    return "\n".join(lines) + "\n"


def _dist_info(project, version):
    return f"{project['name'].replace('-', '_')}-{version}.dist-info"


def _build_info(version):
    return (f'"""Written by the build backend: what this install was built from."""\n'
            f'version = "{version}"\nsource_dir = {str(ROOT)!r}\n')


def _write_wheel(wheel_directory, files, project, version):
    """files: {archive name: bytes}; adds the dist-info and RECORD."""
    name = f"{project['name'].replace('-', '_')}-{version}-{TAG}.whl"
    info = _dist_info(project, version)
    files = dict(files)
    files[f"{info}/METADATA"] = _metadata(project, version).encode()
    files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: cstsim_build\nRoot-Is-Purelib: true\nTag: {TAG}\n").encode()
    record = []
    for arc, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{arc},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    path = Path(wheel_directory) / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in files.items():
            z.writestr(zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0)), data)
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project, version = _project()
    files = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "__pycache__" not in path.parts and path.name != "_build_info.py":
            files[f"cstsim/{path.relative_to(PACKAGE).as_posix()}"] = path.read_bytes()
    files["cstsim/_build_info.py"] = _build_info(version).encode()
    return _write_wheel(wheel_directory, files, project, version)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """`pip install -e .`: a .pth file that puts python/ on the path; the package reads the tree."""
    project, version = _project()
    return _write_wheel(wheel_directory, {"cstsim_editable.pth": (str(ROOT / "python") + "\n").encode()}, project, version)


def build_sdist(sdist_directory, config_settings=None):
    """The Python part of the tree: enough to build the wheel again (the binary is built by CMake)."""
    project, version = _project()
    base = f"{project['name']}-{version}"
    name = f"{base}.tar.gz"
    members = [ROOT / "pyproject.toml", ROOT / "CMakeLists.txt", ROOT / "python" / "README.md",
               ROOT / "python" / "build_backend" / "cstsim_build.py"]
    members += [p for p in sorted(PACKAGE.rglob("*.py")) if "__pycache__" not in p.parts and p.name != "_build_info.py"]
    with tarfile.open(Path(sdist_directory) / name, "w:gz") as tar:
        for p in members:
            if p.is_file():
                tar.add(p, arcname=f"{base}/{p.relative_to(ROOT).as_posix()}")
        meta = _metadata(project, version).encode()
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size, info.mtime = len(meta), int(time.time())
        tar.addfile(info, io.BytesIO(meta))
    return name
