#!/usr/bin/python3
"""Self-test of the plot tools, run by hand (not part of ctest):

    /usr/bin/python3 traces/plot/selftest.py [--keep DIR]

Writes a random trace in the documented format (traces/FORMAT.md) with struct only,
checks cstsim_trace against a brute-force per-cycle reading (step series, exact
integrals, binned means), then runs plot_rt / plot_energy / plot_roofline on it and
checks every PNG and PDF is written. With a cstsim build, it also checks that
`cstsim export csv` agrees (if CSTSIM is set to the binary and `export` is wired).
"""

import argparse
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cstsim_trace as ct  # noqa: E402

RESOURCES = [("array.active_pes", "C", "PE", 256, "top.array", ""),
             ("sram.ifmap.bytes", "M", "byte", 65536, "top.sram", "sram"),
             ("sram.ofmap.bytes", "M", "byte", 65536, "top.sram", "sram"),
             ("noc.busy_links", "N", "link", 32, "top.noc", ""),
             ("io.dma_busy", "S", "device", 4, "top.io", "")]


def write_trace(run, end, hz, seed):
    """A random valid trace; returns {id: per-cycle values} for checking."""
    rng = random.Random(seed)
    tdir = os.path.join(run, "trace")
    os.makedirs(tdir, exist_ok=True)
    per_cycle = {i: [0] * end for i in range(len(RESOURCES))}
    records = []
    for i, (_, _, _, cap, _, _) in enumerate(RESOURCES):
        cur = 0
        for c in sorted(rng.sample(range(end), k=rng.randint(1, end // 4))):
            v = rng.randint(0, cap)
            if v != cur:
                records.append((c, i, v))
                cur = v
    records.sort(key=lambda r: (r[0], r[1]))
    last = [0] * len(RESOURCES)  # brute force: the value of every resource at every cycle
    k = 0
    for c in range(end):
        while k < len(records) and records[k][0] == c:
            last[records[k][1]] = records[k][2]
            k += 1
        for i in range(len(RESOURCES)):
            per_cycle[i][c] = last[i]
    with open(os.path.join(tdir, "rt.bin"), "wb") as f:
        f.write(struct.pack("<8sIIddQQIIQ", b"CSTSIMRT", 1, 64, hz, 1.0 / hz, end, len(records),
                            len(RESOURCES), 24, 0))
        for c, i, v in records:
            f.write(struct.pack("<QIIq", c, i, 0, v))
    with open(os.path.join(tdir, "resources.csv"), "w") as f:
        f.write("id,name,class,unit,capacity,owner,level\n")
        for i, r in enumerate(RESOURCES):
            f.write("%d,%s,%s,%s,%d,%s,%s\n" % ((i,) + r))
    half = end // 2
    with open(os.path.join(tdir, "layers.csv"), "w") as f:
        f.write("layer,name,start_cycle,end_cycle\n0,conv1,0,%d\n1,fc2,%d,%d\n" % (half - 1, half, end - 1))
    with open(os.path.join(tdir, "actions.csv"), "w") as f:
        f.write("layer,window_start,window_end,action,unit,count\n0,0,%d,mac.int8.nominal,MAC,123\n" % half)
    write_manifest(tdir, end, len(records))
    return per_cycle, records


def write_manifest(tdir, end, records):
    """manifest.json as the sink writes it (traces/manifest.h): sizes, CRC-32 and rows of every file."""
    files = {}
    for name in ("rt.bin", "actions.csv", "resources.csv", "layers.csv"):
        with open(os.path.join(tdir, name), "rb") as f:
            data = f.read()
        body = data[64:] if name == "rt.bin" else data
        rows = records if name == "rt.bin" else data.count(b"\n") - 1
        files[name] = {"bytes": len(data), "crc32": zlib.crc32(body), "rows": rows}
    with open(os.path.join(tdir, "manifest.json"), "w") as f:
        json.dump({"format": 1, "end_cycle": end, "records": records, "files": files}, f, indent=2)


def check_reader(run, end, per_cycle, records):
    t = ct.Trace(run)
    assert t.end_cycle == end and t.record_count == len(records)
    assert [r["name"] for r in t.resources] == [r[0] for r in RESOURCES]
    assert list(t.records()) == records, "records differ"
    assert list(t.records(chunk=3)) == records, "chunked reading differs"
    series = t.step_series()
    for i, values in per_cycle.items():
        cs, vs = series[i]
        assert cs[0] == 0 and cs[-1] == end, (cs[0], cs[-1])
        assert all(a < b for a, b in zip(cs, cs[1:])), "cycles must increase"
        for k in range(len(cs) - 1):
            assert all(values[c] == vs[k] for c in range(cs[k], cs[k + 1])), "step %d of %d" % (k, i)
    integ = t.integrals()
    for i, values in per_cycle.items():
        assert integ[i] == sum(values), (i, integ[i], sum(values))
    for bins in (1, 7, end, 3 * end):
        edges, means = t.binned_means(bins)
        for i in per_cycle:
            total = sum(m * (edges[k + 1] - edges[k]) for k, m in enumerate(means[i]))
            assert abs(total - integ[i]) <= 1e-9 * max(1, integ[i]), (bins, i, total, integ[i])
    # A window: each bin's mean is the exact average of its cycles, its peak the highest value held.
    for start, stop, bins in ((0, end, 5), (3, end - 2, 4), (end // 3, end // 3 + 7, 7)):
        edges, means, peaks = t.binned(bins, None, start, stop)
        assert edges[0] == start and edges[-1] == stop
        for i, values in per_cycle.items():
            for k in range(len(edges) - 1):
                lo, hi = edges[k], edges[k + 1]
                cycles = [c for c in range(start, stop) if lo <= c < hi or (c < hi and c + 1 > lo)]
                weight = sum(min(c + 1, hi) - max(c, lo) for c in cycles)
                exact = sum(values[c] * (min(c + 1, hi) - max(c, lo)) for c in cycles) / weight
                assert abs(means[i][k] - exact) <= 1e-9 * max(1, abs(exact)), (start, stop, bins, i, k)
                assert peaks[i][k] == max(values[c] for c in cycles), (start, stop, bins, i, k)
    assert t.actions()[0]["count"] == 123
    print("reader: %d records, %d resources: ok" % (len(records), len(t.resources)))


def write_side_files(run, end, hz):
    period = 1.0 / hz
    with open(os.path.join(run, "energy_windows.csv"), "w") as f:
        f.write("layer,window_start,window_end,time_start_s,time_end_s,e_marg_J,e_base_J,e_gross_J\n")
        for ws in range(0, end, 64):
            we = min(ws + 64, end)
            if ws < end // 2 < we:  # cut at the layer boundary
                spans = [(ws, end // 2), (end // 2, we)]
            else:
                spans = [(ws, we)]
            for a, b in spans:
                layer = 0 if a < end // 2 else 1
                marg = (b - a) * period * (0.2 + 0.1 * (a % 3))
                base = (b - a) * period * 0.1
                f.write("%d,%d,%d,%.12g,%.12g,%.6g,%.6g,%.6g\n" % (layer, a, b, a * period, b * period, marg, base,
                                                                     marg + base))
    report = {"machine": {"peak_ops_per_s": {"value": 2 * 256 * hz}, "bandwidth": {"value": 64e9}},
              "layers": [{"name": "conv1", "time_s": end / 2 * period,
                          "roofline": {"I_A": {"value": 3.0}, "achieved_ops_per_s": {"value": 1.5e11}}},
                         {"name": "fc2", "time_s": end / 2 * period,
                          "roofline": {"I_A": {"value": 30.0}, "achieved_ops_per_s": {"value": 4.0e11}}},
                         {"name": "empty", "roofline": {"I_A": {"value": 0}, "achieved_ops_per_s": {"value": 0}}}]}
    with open(os.path.join(run, "report.json"), "w") as f:
        json.dump(report, f)


def check_scripts(run, out):
    for script, extra in (("plot_rt.py", []), ("plot_rt.py", ["--max-points", "10", "--bins", "50"]),
                          ("plot_rt.py", ["--max-points", "10", "--layer", "fc2"]),
                          ("plot_rt.py", ["--window", "5:40"]), ("plot_energy.py", []), ("plot_roofline.py", [run])):
        prefix = os.path.join(out, script[:-3] + "".join(x.strip("-:").replace(":", "_") for x in extra[::2]))
        cmd = [sys.executable, os.path.join(HERE, script), run] + extra + ["--out", prefix]
        p = subprocess.run(cmd, capture_output=True, text=True)
        assert p.returncode == 0, "%s failed:\n%s" % (" ".join(cmd), p.stderr)
        for ext in (".png", ".pdf"):
            assert os.path.getsize(prefix + ext) > 0, prefix + ext
        print("%s %s: ok" % (script, " ".join(extra)))
    p = subprocess.run([sys.executable, os.path.join(HERE, "plot_rt.py"), os.path.join(run, "missing"),
                        "--out", os.path.join(out, "x")], capture_output=True, text=True)
    assert p.returncode != 0 and p.stderr.startswith("error: plot_rt:"), p.stderr
    for bad in (["--layer", "nope"], ["--window", "9:3"], ["--window", "x"]):
        p = subprocess.run([sys.executable, os.path.join(HERE, "plot_rt.py"), run, "--out", os.path.join(out, "x")] + bad,
                           capture_output=True, text=True)
        assert p.returncode != 0 and p.stderr.startswith("error: plot_rt: --"), (bad, p.stderr)


def check_cli(run, records, hz):
    binary = os.environ.get("CSTSIM")
    if not binary:
        print("cstsim export: skipped (set CSTSIM=path/to/cstsim)")
        return
    p = subprocess.run([binary, "export", "csv", run], capture_output=True, text=True)
    if p.returncode != 0:
        print("cstsim export: skipped (%s)" % p.stderr.strip())
        return
    with open(os.path.join(run, "trace", "rt.csv")) as f:
        rows = [line.rstrip("\n").split(",") for line in f][1:]
    assert [(int(r[0]), int(r[2]), int(r[4])) for r in rows] == records
    assert all(abs(float(r[1]) - int(r[0]) / hz) <= 1e-14 * int(r[0]) / hz for r in rows)
    print("cstsim export csv agrees: ok")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", default=None, help="write the run and figures into DIR and keep them")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    root = args.keep or tempfile.mkdtemp(prefix="cstsim-plot-selftest-")
    try:
        for hz, end in ((1e9, 300), (7e8, 257)):
            run = os.path.join(root, "run-%g" % hz)
            per_cycle, records = write_trace(run, end, hz, args.seed)
            check_reader(run, end, per_cycle, records)
            write_side_files(run, end, hz)
            check_scripts(run, os.path.join(root, "fig-%g" % hz))
            check_cli(run, records, hz)
        print("all ok" + (" (files in %s)" % root if args.keep else ""))
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
