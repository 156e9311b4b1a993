#!/usr/bin/env python3
"""--verify on random cases, judged against the workload as this script writes it.

  random_verify.py CSTSIM --cases N [--seed S] [--jobs J]

Each case is a random GEMM chain (ws, os, is; int4, int8, bf16, fp8 with their packings; ideal
memory or the full hierarchy; 1-4 clusters) or a random convolution on the row-stationary array
(int16, int8, bf16, fp8; Eyeriss's DRAM channel, or HBM2 + mesh + scratchpad). A case passes when the run
exits 0, summary.json says verify passed, every layer's MACs equal what the layer's shape asks
for (M x N x K of the GEMM, or out_h x out_w x filters x fh x fw x channels of the convolution,
computed here from the numbers written into the workload, never read back from the run), and the
run takes no fewer cycles than those MACs need on its PEs. Every tenth GEMM case also plants a
wrong plan (--inject-plan-fault: K halved in one layer's passes): that run must exit 3 with an
`internal error:` line and write nothing. Exit status 0 when every case holds.
"""
import argparse
import concurrent.futures
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARCH = os.path.join(SOURCE, "configs", "arch")
# operand -> packings (MACs per PE per cycle) a PE table may give it
PACKINGS = {"int4": [2], "int8": [1, 2], "bf16": [1, 2], "fp8_e4m3": [1, 2, 4]}


def gemm_case(rng):
    dataflow = rng.choice(["ws", "os", "is"])
    operand = rng.choice(sorted(PACKINGS))
    pack = rng.choice(PACKINGS[operand])
    memory = rng.choice(["ideal", "hierarchy"])
    clusters = rng.randint(1, 4)
    rows, cols = rng.randint(4, 33), rng.randint(4, 32)
    layers = [(f"g{i}", rng.randint(1, 200), rng.randint(1, 150), rng.randint(1, 300)) for i in range(rng.randint(1, 3))]
    arch = "npu-128-hbm3.yaml" if memory == "hierarchy" else "npu-128.yaml"
    sets = {"dataflow": dataflow, "array.rows": rows, "array.cols": cols, "clusters": clusters,
            "precision.operand": operand, f"precision.macs_per_pe.{operand}": pack}
    text = "name: w\nlayers:\n" + "".join(f"  - {{name: {n}, M: {m}, N: {nn}, K: {k}, input: none}}\n"
                                          for n, m, nn, k in layers)
    return {"kind": "gemm", "arch": arch, "sets": sets, "file": "w.yaml", "text": text,
            "macs": [m * nn * k for _, m, nn, k in layers], "pes": rows * cols * pack * clusters,
            "names": [n for n, _, _, k in layers if k >= 2]}  # K of 1 cannot be halved


def rs_hierarchy_arch(rows, cols):
    """A row-stationary array behind HBM2, the NPU mesh and a scratchpad (as tests/sim's RS test)."""
    return ("name: rs-h\narray: {rows: %d, cols: %d}\ndataflow: rs\n"
            "precision: {operand: int16, accumulator: int32}\n"
            "rs: {filter_spad: 224, ifmap_spad: 12, psum_spad: 24, rlc: true}\nmemory: hierarchy\n"
            "sram: {ifmap_kib: 64, filter_kib: 32, ofmap_kib: 64}\n"
            "hbm: {spec: %s/configs/memory/hbm2-2000.yaml}\n"
            "noc: {spec: %s/configs/noc/npu-mesh-4x4.yaml}\n"
            "scratchpad: {banks: 40, word_bytes: 32}\n" % (rows, cols, SOURCE, SOURCE))


def conv_case(rng):
    operand = rng.choice(["int16", "int8", "bf16", "fp8_e4m3"])
    rows, cols = rng.randint(3, 12), rng.randint(3, 14)
    f = rng.randint(1, 7)
    size = rng.randint(f, 21)
    stride = rng.randint(1, 4)
    channels, filters = rng.randint(1, 8), rng.randint(1, 11)
    out = (size - f + stride + stride - 1) // stride  # SCALE-Sim's rounding (topology rows)
    sets = {"array.rows": rows, "array.cols": cols, "precision.operand": operand,
            f"precision.macs_per_pe.{operand}": 1,
            "precision.accumulator": "fp32" if operand in ("bf16", "fp8_e4m3") else "int32"}
    text = ("Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"
            f"c1, {size}, {size}, {f}, {f}, {channels}, {filters}, {stride},\n")
    hierarchy = rng.random() < 0.4
    return {"kind": "rs", "arch": "eyeriss.yaml", "sets": sets, "file": "c.csv", "text": text,
            "arch_text": rs_hierarchy_arch(rows, cols) if hierarchy else None,
            "macs": [out * out * filters * f * f * channels], "pes": rows * cols, "names": ["c1"]}


def run_case(binary, case, seed, plant):
    d = tempfile.mkdtemp(prefix="cstsim_verify_")
    try:
        with open(os.path.join(d, case["file"]), "w") as f:
            f.write(case["text"])
        arch = os.path.join(ARCH, case["arch"])
        if case.get("arch_text"):
            arch = os.path.join(d, "arch.yaml")
            with open(arch, "w") as f:
                f.write(case["arch_text"])
        cmd = [binary, "run", "--arch", arch, "--workload", case["file"], "--out", "o",
               "--verify", "--no-trace", "-q", "--seed", str(seed)]
        for k, v in case["sets"].items():
            cmd += ["--set", f"{k}={v}"]
        if case["kind"] == "rs" and case["sets"]["precision.operand"] in ("bf16", "fp8_e4m3"):  # Eyeriss's table: integers
            cmd += ["--energy", os.path.join(SOURCE, "configs", "energy", "horowitz-45nm.yaml")]
        if plant:
            cmd += ["--inject-plan-fault", plant]
        p = subprocess.run(cmd, cwd=d, capture_output=True, text=True, timeout=300)
        shown = " ".join(cmd[1:])
        if plant:
            if p.returncode != 3 or not p.stderr.startswith("internal error: invariant 'work as written'"):
                return f"planted plan fault not caught (exit {p.returncode}: {p.stderr.strip()[:200]}): {shown}"
            if os.path.exists(os.path.join(d, "o")):
                return f"planted plan fault left output: {shown}"
            return None
        if p.returncode != 0:
            return f"exit {p.returncode}: {p.stderr.strip()[:300]}: {shown}"
        s = json.load(open(os.path.join(d, "o", "summary.json")))
        if not s.get("verify", {}).get("passed"):
            return f"verify did not pass: {shown}"
        got = [l["macs"] for l in s["layers"]]
        if got != case["macs"]:
            return f"MACs {got}, the workload asks for {case['macs']}: {shown}"
        need = -(-sum(case["macs"]) // case["pes"])
        if s["total"]["cycles"] < need:
            return f"{s['total']['cycles']} cycles, below the {need} its MACs need: {shown}\n{case['text']}"
        return None
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    a.binary = os.path.abspath(a.binary)
    rng = random.Random(a.seed)
    work = []
    for i in range(a.cases):
        case = conv_case(rng) if rng.random() < 0.2 else gemm_case(rng)
        plant = case["names"][0] if case["kind"] == "gemm" and i % 10 == 9 and case["names"] else None
        work.append((case, i + 1, plant))
    failures = []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for problem in pool.map(lambda w: run_case(a.binary, *w), work):
            if problem:
                failures.append(problem)
    planted = sum(1 for w in work if w[2])
    print(f"{len(work)} cases ({planted} with a planted plan fault): {len(work) - len(failures)} hold, "
          f"{len(failures)} fail")
    for f in failures[:20]:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
