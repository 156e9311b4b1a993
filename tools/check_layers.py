#!/usr/bin/env python3
"""Checks that includes run one way down the floors (DESIGN.md, "Top-level layout").

    tools/check_layers.py BUILD_DIR

Rules, each a folder and what it may not include:
  - core/ includes nothing of ours outside core/;
  - plan/ includes only plan/ and core/;
  - models/, traces/ never include sim/;
  - sim/mapper/ and traces/ never include models/;
  - inside models/, folders include only their own floor or lower ones (MODEL_FLOORS), except the
    includes CONTRIBUTING.md lists between its `layer-exceptions` markers;
  - the sequencer (models/accelerator/sequencer.*) names no step kind: it dispatches by name;
  - <systemc> reaches none of core/, plan/, sim/mapper/, sim/sweep/ and the timing-rule
    classes (checked through the compiler's own dependency list, so it is transitive).

Every break is named, one line each. Exit 0 when all hold, 1 otherwise.
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
# The floors inside models/, lowest first: a folder may include its own and lower floors.
MODEL_FLOORS = [
    ("base",),
    ("hbm", "noc", "scratchpad", "interconnect"),
    ("dma",),
    ("memory", "scalesim"),
    ("vector",),
    ("array",),
    ("accelerator",),
]
# The step kinds' type names (plan/program.h), which the sequencer must not mention.
STEP_KIND_TYPES = re.compile(r"\b(GemmLayerStep|RsLayerStep|VectorKernelStep|FlashKernelStep|CollectiveStep|ExtensionStep)\b")
# Plain C++ that must compile without the SystemC kernel.
NO_SYSTEMC = ["core/", "plan/", "sim/mapper/", "sim/sweep/", "models/hbm/timing_table", "models/hbm/bank",
              "models/hbm/hbm_checker", "models/hbm/hbm_controller", "models/hbm/hbm_device", "models/noc/router",
              "models/noc/network", "models/noc/mesh.", "models/array/fold_timing", "models/scratchpad/",
              "models/dma/", "models/memory/hierarchy_source", "models/memory/hbm_tile_source",
              "models/memory/weight_channel", "models/vector/vector_result", "models/array/layer_result"]


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


def model_floor(path):
    parts = path.split("/")
    if len(parts) < 3 or parts[0] != "models":
        return None
    for level, folders in enumerate(MODEL_FLOORS):
        if parts[1] in folders:
            return level
    return -1  # a folder with no floor yet: every include from or to it is a break


def layer_exceptions():
    """The climbing includes CONTRIBUTING.md names: `from` -> `to`, fnmatch patterns."""
    text = (ROOT / "CONTRIBUTING.md").read_text()
    block = re.search(r"<!-- layer-exceptions: begin -->(.*?)<!-- layer-exceptions: end -->", text, re.S)
    if not block:
        return []
    return re.findall(r"^- `([^`]+)` → `([^`]+)`", block.group(1), re.M)


def model_breaks():
    import fnmatch
    allowed = layer_exceptions()
    out, used = [], set()
    for f in sources():
        src = model_floor(f)
        if src is None:
            continue
        text = (ROOT / f).read_text(errors="replace")
        for inc in INCLUDE.findall(text):
            dst = model_floor(inc)
            if dst is None or inc.split("/")[1] == f.split("/")[1]:
                continue
            if src >= 0 and 0 <= dst <= src:
                continue
            hit = [(a, b) for a, b in allowed if fnmatch.fnmatch(f, a) and fnmatch.fnmatch(inc, b)]
            if hit:
                used.update(hit)
                continue
            out.append(f"{f} -> {inc}")
    for a, b in allowed:
        if (a, b) not in used:
            out.append(f"CONTRIBUTING.md names `{a}` → `{b}`, which no include uses any more (drop it)")
    for f in sources():
        if f.startswith("models/accelerator/sequencer."):
            for kind in sorted(set(STEP_KIND_TYPES.findall((ROOT / f).read_text()))):
                out.append(f"{f} names the step kind {kind} (the sequencer dispatches by the kind's name)")
    return out


UNITY_INCLUDE = re.compile(r'^#include "([^"]+\.cpp)"', re.M)


def compiled_sources(build):
    """(source, its compile command, directory) for every source the build compiles: a unity batch
    (CSTSIM_UNITY_BUILD) stands for each source it includes, compiled with the batch's command."""
    db = json.loads((Path(build) / "compile_commands.json").read_text())
    for entry in db:
        f = Path(entry["file"]).resolve()
        members = [f]
        if "/Unity/" in f.as_posix() and f.exists():
            members = [Path(m).resolve() for m in UNITY_INCLUDE.findall(f.read_text(errors="replace"))]
        for m in members:
            yield m, entry["command"].replace(entry["file"], str(m)), entry["directory"]


def systemc_breaks(build):
    out = []
    for f, command, directory in compiled_sources(build):
        try:
            rel = f.relative_to(ROOT).as_posix()
        except ValueError:
            continue
        if not any(rel.startswith(p) for p in NO_SYSTEMC):
            continue
        args = shlex.split(command)
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
        deps = subprocess.run(cmd + ["-M"], cwd=directory, capture_output=True, text=True)
        if deps.returncode != 0:
            out.append(f"{rel} -> (could not list its dependencies: {deps.stderr.strip()[:200]})")
        elif re.search(r"/systemc(\.h)?\b|/sysc/", deps.stdout):
            out.append(f"{rel} -> <systemc>")
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    found = include_breaks() + model_breaks() + systemc_breaks(sys.argv[1])
    for b in found:
        print(f"error: check_layers: {b}: an include that climbs a floor (DESIGN.md); fix it")
    if not found:
        print("check_layers: OK (includes run one way down; no <systemc> in plain C++)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
