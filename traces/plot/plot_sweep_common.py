#!/usr/bin/python3
"""Shared reading of a sweep's results.csv for the sweep plots (standard library only).

    import plot_sweep_common as sc
    res = sc.Results("out/sweeps/array-dataflow/results.csv")   # or the sweep directory
    rows = res.select(["workload=resnet18"])                    # status == done, filtered
    bad = res.failed(["workload=resnet18"])                     # the others: draw them as failed
    col = res.column("energy")                                  # alias -> "energy.E_gross"
    res.label(col)                                              # "energy E_gross (J)"
    sc.number(row[col])                                         # float or None

Column names are those of results.csv (sim/sweep/collect.h); units come from
results.columns.csv next to it when present. Aliases match `cstsim pareto`.
"""

import csv
import math
import os

ALIASES = {
    "cycles": "cycles",
    "time": "Theta_CST.T_wall",
    "energy": "energy.E_gross",
    "e_marg": "energy.E_marg",
    "m_peak": "Theta_CST.M_peak.total",
    "b_peak": "Theta_CST.B_peak",
    "d_peak": "Theta_CST.D_peak",
    "n_peak": "H_peak.N_peak",
    "v_c": "V_CST.V_C.PE_s",
    "v_n": "V_CST.V_N",
    "stalls": "stall_cycles",
    "pes": "arch.pes",
    "utilization": "utilization",
    "u_c": "roofline.u_C",
    "u_m": "roofline.u_M",
}

# Short axis names for labels.
PRETTY = {
    "cycles": "cycles",
    "energy.E_gross": "energy $E_\\mathrm{gross}$",
    "energy.E_marg": "energy $E_\\mathrm{marg}$",
    "Theta_CST.T_wall": "$T_\\mathrm{wall}$",
    "Theta_CST.M_peak.total": "$M_\\mathrm{peak}$",
    "Theta_CST.B_peak": "$B_\\mathrm{peak}$",
    "H_peak.N_peak": "$N_\\mathrm{peak}$",
    "V_CST.V_C.PE_s": "$V_C$",
    "V_CST.V_N": "$V_N$",
    "utilization": "utilization",
    "roofline.u_C": "$u_C$",
    "roofline.u_M": "$u_M$",
    "roofline.I_A": "$I_A$",
    "roofline.achieved_ops_per_s": "achieved",
    "arch.pes": "PEs",
    "array.rows": "array rows",
    "array.cols": "array cols",
    "dataflow": "dataflow",
    "stall_cycles": "stall cycles",
}

# Metrics where higher is better (the rest are costs).
HIGHER_IS_BETTER = ("utilization", "roofline.u_C", "roofline.u_M", "roofline.achieved_ops_per_s",
                    "Theta_CST.P_parallel.PEs", "H_peak.P_peak_actual")


def number(text):
    """float(text), or None for an empty or non-numeric field."""
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def sort_values(values):
    """Distinct values in order: numerically when all are numbers, else first-seen order."""
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    if seen and all(number(v) is not None for v in seen):
        return sorted(seen, key=number)
    return seen


class Results:
    def __init__(self, path):
        if os.path.isdir(path):
            path = os.path.join(path, "results.csv")
        self.path = path
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            self.columns = list(reader.fieldnames or [])
            self.rows = list(reader)
        self.units = {}
        cols = os.path.join(os.path.dirname(os.path.abspath(path)), "results.columns.csv")
        if os.path.exists(cols):
            with open(cols, newline="") as f:
                for r in csv.DictReader(f):
                    self.units[r["column"]] = r.get("unit", "")
        # Parameters: the columns between batch and hash, as collect writes them.
        self.params = []
        if "batch" in self.columns and "hash" in self.columns:
            self.params = self.columns[self.columns.index("batch") + 1:self.columns.index("hash")]

    def column(self, name):
        """A column name or alias -> the results.csv column; ValueError if absent."""
        if name in self.columns:
            return name
        if name in ALIASES and ALIASES[name] in self.columns:
            return ALIASES[name]
        raise ValueError("%s: no column %r (aliases: %s)" % (self.path, name, ", ".join(sorted(ALIASES))))

    def select(self, where=()):
        """Rows with status done (when there is a status column) matching every KEY=VALUE of `where`."""
        conds = []
        for w in where or ():
            if "=" not in w:
                raise ValueError("--where expects KEY=VALUE, got %r" % w)
            k, v = w.split("=", 1)
            conds.append((self.column(k), v))
        out = []
        for r in self.rows:
            if "status" in r and r["status"] != "done":
                continue
            if all(r.get(k) == v or (number(r.get(k)) is not None and number(r.get(k)) == number(v))
                   for k, v in conds):
                out.append(r)
        return out

    def failed(self, where=()):
        """Rows that did not finish (status failed or missing) matching every KEY=VALUE of `where`:
        the figures draw them as failed, never leave them out silently."""
        if "status" not in self.columns:
            return []
        done = {id(r) for r in self.select(where)}
        keep = {id(r) for r in self._matching(where)}
        return [r for r in self.rows if id(r) in keep and id(r) not in done]

    def _matching(self, where):
        conds = []
        for w in where or ():
            k, v = w.split("=", 1)
            conds.append((self.column(k), v))
        return [r for r in self.rows
                if all(r.get(k) == v or (number(r.get(k)) is not None and number(r.get(k)) == number(v)) for k, v in conds)]

    def unit(self, col):
        return self.units.get(col, "")

    def label(self, col, with_unit=True):
        name = PRETTY.get(col, col)
        u = self.unit(col)
        if with_unit and u and u != "1":
            return "%s (%s)" % (name, u)
        return name


def point_label(row, keys):
    """'64x64 os' style label of a row from parameter columns."""
    parts = []
    rows, cols = row.get("array.rows"), row.get("array.cols")
    for k in keys:
        if k == "array.rows" and rows is not None and cols is not None and "array.cols" in keys:
            parts.append("%sx%s" % (rows, cols))
        elif k == "array.cols" and "array.rows" in keys:
            continue
        else:
            parts.append(str(row.get(k, "")))
    return " ".join(p for p in parts if p)


FAILED_COLOR = "#B2182B"  # dark red: apart from the heatmaps' best-cell outline (vermillion)

# One colour and marker per dataflow in every figure, whichever dataflows a sweep has (Okabe-Ito);
# other columns take colours and markers in the order of their values.
DATAFLOW_STYLE = {"ws": ("#0072B2", "o"), "os": ("#E69F00", "s"), "is": ("#009E73", "^"), "rs": ("#CC79A7", "D")}
COLORS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def ordered(column, values):
    """Distinct values in the order every figure lists them: dataflows as DATAFLOW_STYLE does, the
    rest as sort_values does."""
    vals = sort_values(list(values))
    if column in ("dataflow", "arch.dataflow"):
        known = [d for d in DATAFLOW_STYLE if d in vals]
        return known + [v for v in vals if v not in known]
    return vals


def styles(column, values):
    """{value: (colour, marker)} for the values of `column`: fixed per dataflow, else by order."""
    out = {}
    for k, v in enumerate(values):
        if column in ("dataflow", "arch.dataflow") and str(v) in DATAFLOW_STYLE:
            out[v] = DATAFLOW_STYLE[str(v)]
        else:
            out[v] = (COLORS[k % len(COLORS)], MARKERS[k % len(MARKERS)])
    return out


def caption(rows):
    """'arch npu-128-hbm3, memory hierarchy' from the rows' arch.name and arch.memory (all values)."""
    parts = []
    for col, name in (("arch.name", "arch"), ("arch.memory", "memory"), ("arch.operand", "operand")):
        vals = sort_values([r[col] for r in rows if r.get(col)])
        if vals:
            parts.append("%s %s" % (name, ", ".join(vals)))
    return "; ".join(parts)


def array_label(row):
    """'128x128' for a row with array sides (array.rows/array.cols or arch.rows/arch.cols)."""
    for a, b in (("arch.rows", "arch.cols"), ("array.rows", "array.cols")):
        r, c = number(row.get(a)), number(row.get(b))
        if r is not None and c is not None:
            return "%dx%d" % (r, c)
    side = number(row.get("array.size"))
    return "%dx%d" % (side, side) if side is not None else None


def failed_note(fig, failed, keys, width_chars=150):
    """A footnote naming the points that did not finish ('failed: 3 of 24 points: 256x256 os resnet50
    (exit 2), ...'), so a figure never hides them. Returns the text (empty when none failed)."""
    if not failed:
        return ""
    parts = []
    for r in failed:
        label = point_label(r, keys) or ("point %s" % r.get("index", "?"))
        if r.get("workload"):
            label += " " + r["workload"]
        parts.append(label)
    text = "failed (%d): %s" % (len(failed), ", ".join(parts))
    if len(text) > width_chars:
        text = text[:width_chars - 1] + "…"
    fig.text(0.01, 0.005, text, fontsize=5.5, color=FAILED_COLOR, ha="left", va="bottom")
    return text


# Where a label may sit around its point (offset in points, alignment), in the order tried.
_LABEL_SPOTS = [(-3, 3, "right", "bottom"), (3, -3, "left", "top"), (3, 3, "left", "bottom"), (-3, -3, "right", "top"),
                (0, 5, "center", "bottom"), (0, -5, "center", "top"), (5, 0, "left", "center"), (-5, 0, "right", "center")]


def place_labels(ax, points, fontsize=7, color="black"):
    """Names points [(x, y, text)] on `ax` so that no two labels overprint: each goes to the first
    spot around its point where its box meets no label placed before it (nor any other text of the
    axes) and stays inside the axes; a label with no free spot is left out. Call it once the
    figure's layout is final (after tight_layout). Returns how many were left out."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    taken = [t.get_window_extent(renderer) for t in ax.texts if t.get_text() and t.get_visible()]
    left_out = 0
    for x, y, text in points:
        for dx, dy, ha, va in _LABEL_SPOTS:
            t = ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points", ha=ha, va=va,
                            fontsize=fontsize, color=color)
            box = t.get_window_extent(renderer)
            inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
            if inside and not any(box.overlaps(b) for b in taken):
                taken.append(box)
                break
            t.remove()
        else:
            left_out += 1
    return left_out


def overlapping_texts(fig):
    """Pairs of visible texts of each axes of `fig` whose boxes overlap (the figure tests' check)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    pairs = []
    for ax in fig.axes:
        texts = [t for t in ax.texts if t.get_text() and t.get_visible()]
        boxes = [t.get_window_extent(renderer) for t in texts]
        for i in range(len(texts)):
            for j in range(i + 1, len(texts)):
                if boxes[i].overlaps(boxes[j]):
                    pairs.append((texts[i].get_text(), texts[j].get_text()))
    return pairs


def log_ticks(ax, x=True, y=True):
    """Plain tick labels on log axes (100k, 1M, 2, 3, 4), minor ones labelled too when an axis spans
    less than a decade (else it would show one label or none)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    fmt = FuncFormatter(lambda v, _: short(v) if abs(v) >= 1000 else "%g" % float("%.3g" % v))
    for axis, (lo, hi), on in ((ax.xaxis, ax.get_xlim(), x), (ax.yaxis, ax.get_ylim(), y)):
        if not on:
            continue
        axis.set_major_formatter(fmt)
        axis.set_minor_formatter(fmt if lo > 0 and hi / lo < 10 else NullFormatter())


def short(x):
    """Compact number for a heatmap cell: 3 significant digits with k/M/G/T or m/µ/n/p."""
    if x is None:
        return ""
    if x == 0:
        return "0"
    for f, p in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""), (1e-3, "m"), (1e-6, "µ"),
                 (1e-9, "n"), (1e-12, "p"), (1e-15, "f")):
        if abs(x) >= f * 0.9995:
            return "%.3g%s" % (x / f, p)
    return "%.2g" % x


PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n"),
            (1e-12, "p"), (1e-15, "f"))


def scale_for(values, unit):
    """(factor, unit label) to show `values` of `unit`: an SI prefix putting the largest in [1, 1000)
    for dimensioned units; unitless values stay as they are (factor 1)."""
    if not unit or unit == "1":
        return 1.0, ""
    top = max((abs(v) for v in values if v is not None), default=0)
    if top == 0:
        return 1.0, unit
    for f, p in PREFIXES:
        if top >= f * 0.9995:
            return f, p + unit
    return 1.0, unit


def cell_text(x, unitless):
    """A heatmap cell: k/M/G for large unitless counts, else 3 significant digits."""
    if x is None:
        return ""
    if unitless and abs(x) >= 1000:
        return short(x)
    return "%.3g" % x
