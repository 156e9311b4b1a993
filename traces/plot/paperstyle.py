#!/usr/bin/python3
"""Matplotlib settings shared by the plot scripts: Agg backend, 8 pt fonts, figure
widths of a two-column paper, and saving PREFIX.png + PREFIX.pdf."""

import os
import sys
import tempfile

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError as e:  # the default python3 may be an interpreter without matplotlib
    sys.exit("error: %s: matplotlib is not importable (%s); run the script with /usr/bin/python3 "
             "after installing the Debian package python3-matplotlib" % (sys.executable, e))

WIDTHS = {"single": 3.5, "double": 7.0}  # inches: one column, full page width

# Colours per resource class (colour-blind safe, from the Okabe-Ito palette).
CLASS_COLORS = {"C": "#0072B2", "M": "#E69F00", "N": "#009E73", "S": "#CC79A7"}


def setup():
    matplotlib.rcParams.update({
        "font.family": "DejaVu Sans",
        "font.size": 8,
        "axes.titlesize": 8,
        "axes.labelsize": 8,
        "xtick.labelsize": 7,
        "ytick.labelsize": 7,
        "legend.fontsize": 7,
        "legend.frameon": False,
        "lines.linewidth": 0.9,
        "axes.linewidth": 0.6,
        "xtick.major.width": 0.6,
        "ytick.major.width": 0.6,
        "grid.linewidth": 0.4,
        "grid.alpha": 0.5,
        "savefig.dpi": 300,
        "savefig.bbox": "tight",
        "savefig.pad_inches": 0.02,
        "pdf.fonttype": 42,  # embed TrueType: editable text, accepted by paper systems
        "ps.fonttype": 42,
    })


def parse_width(text):
    """"single" -> 3.5, "double" -> 7.0, "5.2" -> 5.2 (inches)."""
    if text in WIDTHS:
        return WIDTHS[text]
    try:
        w = float(text)
    except ValueError:
        w = 0
    if not 0.5 <= w <= 30:
        import argparse
        raise argparse.ArgumentTypeError("expected single, double or a width in inches, got %r" % text)
    return w


def figure(width, height, **kw):
    """A figure `width` inches (or "single"/"double") by `height` inches."""
    return plt.subplots(figsize=(parse_width(width) if isinstance(width, str) else width, height), **kw)


def add_width_arg(ap, default):
    ap.add_argument("--width", type=parse_width, default=WIDTHS[default],
                    help="figure width: single (3.5 in), double (7 in) or inches (default %s)" % default)


FIGURE_MARK = "cstsim plot"  # sim/cli/plot_cli.cpp looks for it

MIN_POINTS = 7  # no text of a figure smaller than this (what papers ask of figures)


def save(fig, prefix):
    """Writes PREFIX.png and PREFIX.pdf, every text at least MIN_POINTS; returns the two paths."""
    import matplotlib.text
    for t in fig.findobj(matplotlib.text.Text):
        if t.get_fontsize() < MIN_POINTS:
            t.set_fontsize(MIN_POINTS)
    d = os.path.dirname(os.path.abspath(prefix))
    paths = [prefix + ".png", prefix + ".pdf"]
    # The mark tells `cstsim plot` which figures are its own to replace (PNG: a text chunk at the
    # start; PDF: the Info dictionary at the end).
    marks = {".png": {"Software": FIGURE_MARK}, ".pdf": {"Creator": FIGURE_MARK}}
    for p in paths:
        # Under an unguessable name (O_EXCL: a planted name or link is never opened), then renamed.
        try:
            os.makedirs(d, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=d, prefix="." + os.path.basename(p) + ".tmp-")
        except OSError as e:
            sys.exit("error: %s: cannot create: %s" % (p, e.strerror))
        try:
            with os.fdopen(fd, "wb") as f:
                fig.savefig(f, format=p.rsplit(".", 1)[1], metadata=marks[os.path.splitext(p)[1]])
            os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, p)
        except OSError as e:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            sys.exit("error: %s: cannot write: %s" % (p, e.strerror or e))
    plt.close(fig)
    return paths


def _umask():
    m = os.umask(0o022)
    os.umask(m)
    return m


def si(x, unit, digits=3):
    """x with an SI prefix: si(1.28e11, "op/s") -> "128 Gop/s"."""
    if x == 0:
        return "0 " + unit
    for f, p in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""),
                 (1e-3, "m"), (1e-6, "µ"), (1e-9, "n"), (1e-12, "p"), (1e-15, "f")):
        if abs(x) >= f * 0.9995:
            return "%.*g %s%s" % (digits, x / f, p, unit)
    return "%.*g %s" % (digits, x, unit)


def time_scale(seconds):
    """(factor, unit) to show a time span of `seconds` in readable units."""
    for f, u in ((1e9, "ns"), (1e6, "µs"), (1e3, "ms"), (1.0, "s")):
        if seconds * f < 1e4:
            return f, u
    return 1.0, "s"
