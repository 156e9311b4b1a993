#!/usr/bin/env python3
"""ctest Install.Dockerfile: the Dockerfile matches the tree it builds (no Docker daemon runs in
the test environment, so the image itself is not built here). Its base is the Debian release this
machine runs (the one the suite passes on); every `make` target it calls exists in the Makefile;
it installs nothing from outside Debian's archive; .dockerignore keeps build trees out of the
context."""
import re
import sys
from pathlib import Path

src = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
docker = (src / "Dockerfile").read_text()
errors = []

release = dict(line.split("=", 1) for line in Path("/etc/os-release").read_text().splitlines() if "=" in line)
codename = release.get("VERSION_CODENAME", "").strip('"')
bases = re.findall(r"^FROM\s+(\S+)", docker, re.M)
if bases != [f"debian:{codename}"]:
    errors.append(f"FROM {bases}: expected one base, debian:{codename} (this machine's release)")

targets = set(re.findall(r"^([A-Za-z][\w-]*):", (src / "Makefile").read_text(), re.M))
for t in re.findall(r"(?:^RUN|&&|;|then)\s+make\s+([a-z][\w-]*)", docker, re.M):
    if t not in targets:
        errors.append(f"the Dockerfile calls `make {t}`, which the Makefile does not define")
if "make deps" not in docker:
    errors.append("the Dockerfile does not install the Makefile's packages (`make deps`)")
for word in ("curl", "wget", "pip install -i", "--index-url", "git clone"):
    if word in docker:
        errors.append(f"the Dockerfile fetches from outside Debian's archive ({word})")
if "--no-index" not in docker:
    errors.append("the Python package must install with pip --no-index (nothing from an index)")

ignored = {l.strip().rstrip("/") for l in (src / ".dockerignore").read_text().splitlines() if l.strip()}
for d in ("build", "build-asan", "build-fuzz", "out"):
    if d not in ignored:
        errors.append(f".dockerignore does not exclude {d}/")

for e in errors:
    print("Dockerfile:", e)
sys.exit(1 if errors else 0)
