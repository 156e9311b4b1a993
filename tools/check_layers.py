#!/usr/bin/env python3
"""Checks that includes run one way down the floors (DESIGN.md, "Top-level layout").

    tools/check_layers.py BUILD_DIR

Rules, each a folder and what it may not include:
  - core/ includes nothing of ours outside core/;
  - plan/ includes only plan/ and core/;
  - models/, traces/ never include sim/;
  - sim/mapper/ and traces/ never include models/;
  - <systemc> reaches none of core/, plan/, sim/mapper/, sim/sweep/ and the timing-rule
    classes (checked through the compiler's own dependency list, so it is transitive).

There are no exceptions: every break is named, one line each. Exit 0 when all hold,
1 otherwise.
"""
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# (folder, allowed prefixes or None, forbidden prefixes)
RULES = [
    ("core/", ("core/",), ()),
    ("plan/", ("plan/", "core/"), ()),
    ("models/", None, ("sim/",)),
    ("traces/", None, ("sim/", "models/")),
    ("sim/mapper/", None, ("models/",)),
]
# Plain C++ that must compile without the SystemC kernel.
NO_SYSTEMC = ["core/", "plan/", "sim/mapper/", "sim/sweep/", "models/hbm/timing_table", "models/hbm/bank",
              "models/hbm/hbm_checker", "models/hbm/hbm_controller", "models/hbm/hbm_device", "models/noc/router",
              "models/noc/network", "models/noc/mesh.", "models/array/fold_timing", "models/scratchpad/",
              "models/dma/", "models/memory/hierarchy_source", "models/memory/hbm_tile_source",
              "models/memory/weight_channel"]


def sources():
    for top in ("core", "plan", "models", "traces", "sim"):
        for p in sorted((ROOT / top).rglob("*")):
            if p.suffix in (".h", ".cpp"):
                yield p.relative_to(ROOT).as_posix()


def include_breaks():
    out = []
    for f in sources():
        text = (ROOT / f).read_text(errors="replace")
        for inc in INCLUDE.findall(text):
            if not re.match(r"(core|plan|models|traces|sim)/", inc):
                continue  # generated headers (version.h) and tests
            for folder, allowed, forbidden in RULES:
                if not f.startswith(folder):
                    continue
                if (allowed is not None and not inc.startswith(allowed)) or inc.startswith(forbidden):
                    out.append(f"{f} -> {inc}")
    return out


def systemc_breaks(build):
    db = json.loads((Path(build) / "compile_commands.json").read_text())
    out = []
    for entry in db:
        f = Path(entry["file"]).resolve()
        try:
            rel = f.relative_to(ROOT).as_posix()
        except ValueError:
            continue
        if not any(rel.startswith(p) for p in NO_SYSTEMC):
            continue
        args = shlex.split(entry["command"])
        cmd, skip = [], False
        for a in args:  # the compile command with its output dropped, asking for dependencies
            if skip:
                skip = False
                continue
            if a in ("-o", "-MF", "-MT", "-MQ"):
                skip = True
                continue
            if a in ("-c", "-MD", "-MMD"):
                continue
            cmd.append(a)
        deps = subprocess.run(cmd + ["-M"], cwd=entry["directory"], capture_output=True, text=True)
        if deps.returncode != 0:
            out.append(f"{rel} -> (could not list its dependencies: {deps.stderr.strip()[:200]})")
        elif re.search(r"/systemc(\.h)?\b|/sysc/", deps.stdout):
            out.append(f"{rel} -> <systemc>")
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    found = include_breaks() + systemc_breaks(sys.argv[1])
    for b in found:
        print(f"error: check_layers: {b}: an include that climbs a floor (DESIGN.md); fix it")
    if not found:
        print("check_layers: OK (includes run one way down; no <systemc> in plain C++)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
