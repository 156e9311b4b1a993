#!/usr/bin/env python3
"""The negative cases of tests/negative/cases.yaml: bad inputs, bad command lines, bad output paths
and damaged traces, each of which must end in exactly one line `error: ...` on stderr, exit status 2,
within 10 s, and leave every file where it was.

  run_cases.py CSTSIM --list            the case ids (CMake registers one test per id)
  run_cases.py CSTSIM --case ID         run one case; exit 0 when it keeps the promise
  run_cases.py CSTSIM --probe [ID...]   print what each case does now (to write a new case's message)
  run_cases.py --table                  the Markdown table of tests/README.md, from the cases alone
  run_cases.py --check-readme README    whether README's table is that table

Each case runs in a fresh directory with relative paths, so the expected line is compared whole.
A case names its files (`files`, merged over `defaults.files`), shipped files to copy (`copy`),
special files (`dirs`, `fifos`), commands that must succeed first (`setup`, e.g. a good run whose
trace is then damaged) and damage done to their output (`damage`). `error` is the whole expected
line after `error: `.
"""
import argparse
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
TIMEOUT_S = 10


def load_cases():
    with open(os.path.join(HERE, "cases.yaml")) as f:
        doc = yaml.safe_load(f)
    defaults = doc.get("defaults", {})
    cases = []
    seen = set()
    for c in doc["cases"]:
        if c["id"] in seen:
            raise SystemExit(f"cases.yaml: case id {c['id']} given twice")
        seen.add(c["id"])
        files = dict(defaults.get("files", {}))
        files.update(c.get("files", {}))
        c["files"] = files
        cases.append(c)
    return cases


def damage(root, op):
    """One change to a file a setup command wrote."""
    path = os.path.join(root, op["file"])
    kind = op["op"]
    if kind == "remove":
        os.remove(path)
    elif kind == "truncate":  # to `bytes`, or to `fraction` of its size, or `lines` whole lines
        with open(path, "rb") as f:
            data = f.read()
        if "lines" in op:
            data = b"".join(data.splitlines(keepends=True)[: op["lines"]])
        elif "fraction" in op:
            data = data[: int(len(data) * op["fraction"])]
        else:
            data = data[: op["bytes"]]
        with open(path, "wb") as f:
            f.write(data)
    elif kind == "replace":  # the first occurrence of text `from` by `to`
        with open(path, "rb") as f:
            data = f.read()
        old, new = op["from"].encode(), op["to"].encode()
        if old not in data:
            raise SystemExit(f"damage: {op['file']} has no {op['from']!r}")
        with open(path, "wb") as f:
            f.write(data.replace(old, new, 1))
    elif kind == "patch":  # bytes at an offset (negative: from the end), given in hex
        with open(path, "r+b") as f:
            f.seek(op["offset"], os.SEEK_SET if op["offset"] >= 0 else os.SEEK_END)
            f.write(bytes.fromhex(op["hex"]))
    elif kind == "append":
        with open(path, "ab") as f:
            f.write(bytes.fromhex(op["hex"]) if "hex" in op else op["text"].encode())
    elif kind == "write":
        with open(path, "w") as f:
            f.write(op["text"])
    elif kind == "fifo":  # the file (if any) replaced by a named pipe: a reader must not wait on it
        if os.path.lexists(path):
            os.remove(path)
        os.mkfifo(path)
    elif kind == "symlink":  # a link planted at the name, pointing at `to` (its directory made)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.lexists(path):
            os.remove(path)
        os.symlink(op["to"], path)
    else:
        raise SystemExit(f"damage: unknown op {kind}")


def snapshot(root):
    """Every entry under root with a hash of its contents: what the failing command must not change."""
    out = {}
    for base, dirs, files in os.walk(root):
        for d in dirs:
            out[os.path.relpath(os.path.join(base, d), root) + "/"] = ""
        for name in files:
            p = os.path.join(base, name)
            rel = os.path.relpath(p, root)
            if rel in ("stdout", "stderr") or not os.path.isfile(p) or os.path.islink(p):
                out[rel] = "special"
                continue
            with open(p, "rb") as f:
                out[rel] = hashlib.sha1(f.read()).hexdigest()
    return out


def prepare(case, cstsim, root):
    for name, text in case["files"].items():
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", newline="") as f:
            f.write(text)
    for name, text in case.get("latin1_files", {}).items():  # bytes that are not UTF-8
        with open(os.path.join(root, name), "wb") as f:
            f.write(text.encode("latin-1"))
    for name, shipped in case.get("copy", {}).items():
        shutil.copy(os.path.join(SOURCE, shipped), os.path.join(root, name))
    for name in case.get("dirs", []):
        os.makedirs(os.path.join(root, name), exist_ok=True)
    for name in case.get("fifos", []):
        os.mkfifo(os.path.join(root, name))
    for line in case.get("setup", []):
        r = subprocess.run([cstsim] + shlex.split(line), cwd=root, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise SystemExit(f"{case['id']}: setup `{line}` failed ({r.returncode}): {r.stderr.strip()}")
    for op in case.get("damage", []):
        damage(root, op)


def attempt(case, cstsim):
    """(exit status or a word, stderr, what changed) of one case."""
    root = tempfile.mkdtemp(prefix=f"cstsim-neg-{case['id']}-")
    try:
        prepare(case, cstsim, root)
        before = snapshot(root)
        env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
        try:
            r = subprocess.run([cstsim] + shlex.split(case["run"]), cwd=root, capture_output=True, text=True,
                               errors="replace", timeout=TIMEOUT_S, env=env)
            status, err = r.returncode, r.stderr + ("" if not r.stdout.strip() else "")
        except subprocess.TimeoutExpired:
            status, err = "timeout", ""
        after = snapshot(root)
        changed = sorted(set(k for k in set(before) | set(after) if before.get(k) != after.get(k)))
        return status, err, changed
    finally:
        shutil.rmtree(root, ignore_errors=True)


def check(case, cstsim):
    status, err, changed = attempt(case, cstsim)
    problems = []
    if status != 2:
        problems.append(f"exit status {status}, not 2")
    lines = [l for l in err.split("\n") if l]
    expected = "error: " + case["error"]
    if lines != [expected]:
        problems.append(f"stderr should be the one line\n  {expected}\nbut is\n  " + "\n  ".join(lines or ["(nothing)"]))
    if changed:
        problems.append("files changed or left behind: " + ", ".join(changed))
    for p in problems:
        print(f"{case['id']}: {p}")
    return not problems


def table(cases):
    rows = ["| id | area | input | message (after `error: `) |", "|---|---|---|---|"]
    for c in cases:
        msg = c["error"].replace("|", "\\|")
        rows.append(f"| {c['id']} | {c['area']} | {c['what']} | `{msg}` |")
    return "\n".join(rows) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cstsim", nargs="?")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--case")
    ap.add_argument("--probe", nargs="*")
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--check-readme", metavar="README")
    a = ap.parse_args()
    if a.cstsim:
        a.cstsim = os.path.abspath(a.cstsim)
    cases = load_cases()
    if a.table:
        sys.stdout.write(table(cases))
        return 0
    if a.check_readme:  # the table between the markers must be the cases' own
        with open(a.check_readme) as f:
            text = f.read()
        begin, end = "<!-- negative-cases: begin -->\n", "<!-- negative-cases: end -->"
        if begin not in text or end not in text:
            print(f"{a.check_readme}: no negative-cases markers")
            return 1
        shown = text[text.index(begin) + len(begin):text.index(end)]
        if shown != table(cases):
            print(f"{a.check_readme}: the negative-case table differs from tests/negative/cases.yaml; "
                  "regenerate it with tests/negative/run_cases.py --table")
            return 1
        return 0
    if a.list:
        print(";".join(c["id"] for c in cases))
        return 0
    by_id = {c["id"]: c for c in cases}
    if a.case:
        return 0 if check(by_id[a.case], a.cstsim) else 1
    for c in cases if not a.probe else [by_id[i] for i in a.probe]:
        status, err, changed = attempt(c, a.cstsim)
        ok = status == 2 and err.count("\n") == 1 and err.startswith("error: ") and not changed
        mark = "ok " if ok and err.strip() == "error: " + c.get("error", "") else ("ONE" if ok else "BAD")
        print(f"{mark} {c['id']:<22} {status!s:>7} {err.strip()[:300]!r} {changed if changed else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
