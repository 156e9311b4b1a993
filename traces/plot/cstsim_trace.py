#!/usr/bin/python3
"""Reads a cstsim run's trace/ folder (traces/FORMAT.md) with the standard library only.

    import cstsim_trace as ct
    t = ct.Trace("runs/r1")                 # a run directory, or its trace/ folder
    t.period_s, t.end_cycle, t.resources, t.layers
    for cycle, rid, value in t.records():   # streamed from rt.bin
        ...
    cycles, values = t.step_series()[0]     # resource 0 as a step function
    t.integrals()[0]                        # exact integral of resource 0, in unit*cycles

A step series starts with (0, 0) unless a record sets the value at cycle 0, has one
point per record, and ends with (end_cycle, last value): value[i] holds over
[cycles[i], cycles[i+1]); plot it with where="post" / drawstyle="steps-post".

Run as a script, prints one line per resource: name, class, unit, capacity, records,
mean occupancy and the exact integral in unit*s.
"""

import argparse
import csv
import json
import os
import struct
import sys
import zlib

MAGIC = b"CSTSIMRT"
HEADER = struct.Struct("<8sIIddQQIIQ")
RECORD = struct.Struct("<QIIq")
CLASS_NAMES = {"C": "compute", "M": "memory", "N": "network", "S": "storage/I-O"}


def trace_dir(path):
    """<run-dir>/trace, or `path` itself if it already holds rt.bin."""
    if os.path.exists(os.path.join(path, "rt.bin")):
        return path
    return os.path.join(path, "trace")


def read_resources(tdir):
    """resources.csv as a list of dicts (id, capacity as int), in id order."""
    out = []
    with open(os.path.join(tdir, "resources.csv"), newline="") as f:
        for row in csv.DictReader(f):
            row["id"] = int(row["id"])
            row["capacity"] = int(row["capacity"])
            if row["id"] != len(out):
                raise ValueError("%s: ids not in order" % os.path.join(tdir, "resources.csv"))
            out.append(row)
    return out


def read_layers(tdir):
    """layers.csv as dicts: layer (int), name, start_cycle, end_cycle (inclusive)."""
    out = []
    with open(os.path.join(tdir, "layers.csv"), newline="") as f:
        for row in csv.DictReader(f):
            out.append({"layer": int(row["layer"]), "name": row["name"],
                        "start_cycle": int(row["start_cycle"]), "end_cycle": int(row["end_cycle"])})
    return out


def read_actions(tdir):
    """actions.csv as dicts: layer, window_start, window_end, count (int), action, unit."""
    out = []
    path = os.path.join(tdir, "actions.csv")
    if not os.path.exists(path):
        return out
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            for k in ("layer", "window_start", "window_end", "count"):
                row[k] = int(row[k])
            out.append(row)
    return out


def read_header(tdir):
    """The rt.bin header as a dict."""
    path = os.path.join(tdir, "rt.bin")
    with open(path, "rb") as f:
        raw = f.read(HEADER.size)
    if len(raw) != HEADER.size:
        raise ValueError("%s: not a cstsim trace (short header)" % path)
    magic, ver, hdr, hz, period, end, n, nres, rec, _ = HEADER.unpack(raw)
    if magic != MAGIC:
        raise ValueError("%s: not a cstsim trace" % path)
    if ver != 1 or hdr != HEADER.size or rec != RECORD.size:
        raise ValueError("%s: unsupported trace version %d" % (path, ver))
    return {"clock_hz": hz, "period_s": period, "end_cycle": end, "record_count": n,
            "resource_count": nres}


def _crc32_of_file(path, skip=0):
    crc, size = 0, 0
    with open(path, "rb") as f:
        f.seek(skip)
        while True:
            block = f.read(1 << 20)
            if not block:
                break
            crc = zlib.crc32(block, crc)
            size += len(block)
    return crc, size + skip


def verify(tdir):
    """Checks every file of the trace against manifest.json (size, CRC-32; rt.bin's CRC is of its
    records) and rt.bin's header against it, as cstsim's own readers do; ValueError naming the
    file on damage."""
    mpath = os.path.join(tdir, "manifest.json")
    try:
        with open(mpath) as f:
            manifest = json.load(f)
        files = manifest["files"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError("%s: missing or malformed (%s)" % (mpath, e))
    for name, want in files.items():
        path = os.path.join(tdir, name)
        if not os.path.exists(path):
            raise ValueError("%s: missing" % path)
        crc, size = _crc32_of_file(path, skip=HEADER.size if name == "rt.bin" else 0)
        if size != want["bytes"]:
            raise ValueError("%s: damaged: %d bytes where manifest.json has %d" % (path, size, want["bytes"]))
        if crc != want["crc32"]:
            raise ValueError("%s: damaged: its CRC-32 is %08x where manifest.json has %08x" % (path, crc, want["crc32"]))
    h = read_header(tdir)
    if h["record_count"] != manifest.get("records") or h["end_cycle"] != manifest.get("end_cycle"):
        raise ValueError("%s: damaged: the header disagrees with manifest.json" % os.path.join(tdir, "rt.bin"))


class Trace:
    def __init__(self, path, check=True):
        self.dir = trace_dir(path)
        if check:
            verify(self.dir)
        self.resources = read_resources(self.dir)
        self.layers = read_layers(self.dir)
        h = read_header(self.dir)
        if h["resource_count"] != len(self.resources):
            raise ValueError("%s: resource count does not match resources.csv" % self.dir)
        self.clock_hz = h["clock_hz"]
        self.period_s = h["period_s"]
        self.end_cycle = h["end_cycle"]
        self.record_count = h["record_count"]

    def actions(self):
        return read_actions(self.dir)

    def records(self, chunk=8192):
        """Yields (cycle, resource id, value) in file order, reading `chunk` records at a time."""
        path = os.path.join(self.dir, "rt.bin")
        left = self.record_count
        with open(path, "rb") as f:
            f.seek(HEADER.size)
            while left > 0:
                n = min(chunk, left)
                raw = f.read(n * RECORD.size)
                if len(raw) != n * RECORD.size:
                    raise ValueError("%s: truncated" % path)
                for cycle, rid, _, value in RECORD.iter_unpack(raw):
                    if rid >= len(self.resources) or not 0 <= value <= self.resources[rid]["capacity"] \
                            or cycle > self.end_cycle:
                        raise ValueError("%s: record (%d, %d, %d) outside the trace's bounds" % (path, cycle, rid, value))
                    yield cycle, rid, value
                left -= n

    def step_series(self, ids=None):
        """{id: (cycles, values)} step functions (see the module doc); `ids` limits the resources."""
        want = set(range(len(self.resources))) if ids is None else set(ids)
        series = {i: ([0], [0]) for i in want}
        for cycle, rid, value in self.records():
            if rid not in series:
                continue
            cs, vs = series[rid]
            if cycle == cs[-1]:  # a record at cycle 0 replaces the initial 0
                vs[-1] = value
            else:
                cs.append(cycle)
                vs.append(value)
        for cs, vs in series.values():
            if cs[-1] < self.end_cycle:
                cs.append(self.end_cycle)
                vs.append(vs[-1])
        return series

    def integrals(self):
        """{id: exact integral over [0, end_cycle), in unit*cycles} (times period_s for unit*s)."""
        last_c = [0] * len(self.resources)
        last_v = [0] * len(self.resources)
        total = [0] * len(self.resources)
        for cycle, rid, value in self.records():
            total[rid] += last_v[rid] * (cycle - last_c[rid])
            last_c[rid], last_v[rid] = cycle, value
        for rid in range(len(self.resources)):
            total[rid] += last_v[rid] * (self.end_cycle - last_c[rid])
        return dict(enumerate(total))

    def binned_means(self, bins, ids=None, start=0, stop=None):
        """(edges, {id: means}): the exact time-average of each resource over `bins` equal
        spans of [start, stop) (default the whole run) - for plotting traces with too many
        records to draw."""
        edges, means, _ = self.binned(bins, ids, start, stop)
        return edges, means

    def binned(self, bins, ids=None, start=0, stop=None):
        """(edges, {id: means}, {id: peaks}) over `bins` equal spans of [start, stop): each
        resource's exact time-average in a span, and the highest value it held there (a spike
        shorter than a span stays visible)."""
        stop = max(self.end_cycle, 1) if stop is None else stop
        if not 0 <= start < stop:
            raise ValueError("window [%s, %s) is empty" % (start, stop))
        span = stop - start
        bins = max(1, min(bins, span))
        edges = [start + span * k / bins for k in range(bins + 1)]
        want = set(range(len(self.resources))) if ids is None else set(ids)
        acc = {i: [0.0] * bins for i in want}
        peak = {i: [0.0] * bins for i in want}
        last_c = {i: 0 for i in want}
        last_v = {i: 0 for i in want}

        def spread(rid, c0, c1, v):  # value v held over cycles [c0, c1), clipped to the window
            c0, c1 = max(c0, start), min(c1, stop)
            if c1 <= c0:
                return
            a, p = acc[rid], peak[rid]
            k = min(int((c0 - start) * bins // span), bins - 1)
            while c0 < c1:
                hi = min(c1, edges[k + 1]) if k + 1 < bins else c1
                a[k] += v * (hi - c0)
                p[k] = max(p[k], v)
                c0 = hi
                k += 1

        for cycle, rid, value in self.records():
            if rid in acc:
                spread(rid, last_c[rid], cycle, last_v[rid])
                last_c[rid], last_v[rid] = cycle, value
        for rid in acc:
            spread(rid, last_c[rid], self.end_cycle, last_v[rid])
        means = {rid: [s / (edges[k + 1] - edges[k]) for k, s in enumerate(a)] for rid, a in acc.items()}
        return edges, means, peak


def main():
    ap = argparse.ArgumentParser(description="Summarise a cstsim trace: one line per resource.")
    ap.add_argument("run_dir", help="run directory (or its trace/ folder)")
    args = ap.parse_args()
    try:
        t = Trace(args.run_dir)
    except (OSError, ValueError) as e:
        sys.exit("error: %s" % e)
    counts = [0] * len(t.resources)
    for _, rid, _ in t.records():
        counts[rid] += 1
    integ = t.integrals()
    print("clock %.6g Hz, %d cycles (%.6g s), %d records" % (t.clock_hz, t.end_cycle,
                                                             t.end_cycle * t.period_s, t.record_count))
    for r in t.resources:
        mean = integ[r["id"]] / t.end_cycle if t.end_cycle else 0.0
        print("%-32s %s %-6s cap %-8d records %-8d mean %-10.4g integral %.6g %s*s" % (
            r["name"], r["class"], r["unit"], r["capacity"], counts[r["id"]], mean,
            integ[r["id"]] * t.period_s, r["unit"]))


if __name__ == "__main__":
    main()
