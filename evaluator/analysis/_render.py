"""One renderer for every :class:`~evaluator.analysis.Figure`: inline SVG for the HTML
report, PNG/SVG/PDF files for ``--figures``.

matplotlib is imported here only, inside the functions (``oracle-eval --help`` never loads
it), with its Agg canvas and no pyplot (no global figure state). Output is deterministic:
a fixed ``svg.hashsalt``, no dates or software names in the metadata, text kept as text.
"""

from __future__ import annotations

import io
import math
import re
from typing import TYPE_CHECKING, Any, cast

from evaluator.analysis._model import Figure, Series

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["FORMATS", "inline_svg", "render_figure"]

FORMATS = ("png", "svg", "pdf")

_RC: dict[str, Any] = {
    "svg.hashsalt": "oracle-bench",
    "svg.fonttype": "none",
    "pdf.fonttype": 42,
    "font.family": "DejaVu Sans",
    "font.size": 9.0,
    "axes.grid": True,
    "grid.alpha": 0.3,
}
_METADATA: dict[str, dict[str, Any]] = {
    "svg": {"Date": None, "Creator": None, "Format": None, "Type": None},
    "png": {"Software": None},
    "pdf": {"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None},
}
_GUIDE = "0.45"


def _nan(values: list[float | None]) -> list[float]:
    return [math.nan if v is None else float(v) for v in values]


def _whiskers(s: Series) -> list[list[float]] | None:
    if s.low is None or s.high is None:
        return None
    below = [
        0.0 if y is None or lo is None else max(y - lo, 0.0)
        for y, lo in zip(s.y, s.low, strict=True)
    ]
    above = [
        0.0 if y is None or hi is None else max(hi - y, 0.0)
        for y, hi in zip(s.y, s.high, strict=True)
    ]
    return [below, above]


def _positions(figure: Figure) -> tuple[list[str], dict[str, int]] | None:
    """The categories of a figure whose x values are text (None: numeric x)."""
    if not any(isinstance(x, str) for s in figure.series for x in s.x):
        return None
    categories = list(dict.fromkeys(str(x) for s in figure.series for x in s.x))
    return categories, {c: i for i, c in enumerate(categories)}


def _draw_bars(ax: Axes, figure: Figure) -> None:
    categories = list(dict.fromkeys(str(x) for s in figure.series if not s.guide for x in s.x))
    index = {c: i for i, c in enumerate(categories)}
    data = [s for s in figure.series if not s.guide]
    width = 0.8 / max(len(data), 1)
    for i, s in enumerate(data):
        offset = (i - (len(data) - 1) / 2) * width
        xs = [index[str(x)] + offset for x in s.x]
        ax.bar(xs, _nan(s.y), width=width, label=s.label, yerr=_whiskers(s), capsize=2)
    for s in figure.series:
        if s.guide:
            for y in s.y:
                if y is not None:
                    ax.axhline(y, color=_GUIDE, linestyle="--", linewidth=1, label=s.label)
    ax.set_xticks(range(len(categories)))
    ax.set_xticklabels(categories, rotation=30 if len(categories) > 4 else 0, ha="right")


def _draw_lines(ax: Axes, figure: Figure) -> None:
    categorical = _positions(figure)
    for s in figure.series:
        if categorical is not None:
            xs = [float(categorical[1][str(x)]) for x in s.x]
        else:
            xs = [float(x) for x in s.x]
        ys = _nan(s.y)
        if s.guide:
            ax.plot(xs, ys, color=_GUIDE, linestyle="--", linewidth=1, label=s.label)
            continue
        if figure.chart == "step":
            (line,) = ax.step(xs, ys, where="post", label=s.label)
        else:
            (line,) = ax.plot(xs, ys, marker="o", markersize=3, label=s.label)
        if s.low is not None and s.high is not None:
            ax.fill_between(
                xs,
                _nan(s.low),
                _nan(s.high),
                color=line.get_color(),
                alpha=0.15,
                linewidth=0,
                step="post" if figure.chart == "step" else None,
            )
    if categorical is not None:
        ax.set_xticks(range(len(categorical[0])))
        ax.set_xticklabels(categorical[0])


def render_figure(figure: Figure, fmt: str) -> bytes:
    """``figure`` as a ``png``, ``svg`` or ``pdf`` file's bytes (the same bytes for the
    same figure)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown figure format {fmt!r} (one of {', '.join(FORMATS)})")
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    with matplotlib.rc_context(cast(Any, _RC)):
        width = 7.0
        if figure.chart == "bar":
            # A few categories make narrow figures, not wide bars.
            categories = {str(x) for s in figure.series if not s.guide for x in s.x}
            width = min(7.0, 3.5 + 1.2 * len(categories))
        fig = MplFigure(figsize=(width, 4.0), dpi=100)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        if figure.chart == "bar":
            _draw_bars(ax, figure)
        else:
            _draw_lines(ax, figure)
        if figure.log_x:
            ax.set_xscale("log")
        if figure.y_range is not None:
            ax.set_ylim(*figure.y_range)
        ax.set_title(figure.title, fontsize=10)
        ax.set_xlabel(figure.x_label)
        ax.set_ylabel(figure.y_label)
        handles, labels = ax.get_legend_handles_labels()
        if labels:
            unique = dict(zip(labels, handles, strict=True))
            ax.legend(unique.values(), unique.keys(), fontsize=8, loc="best")
        fig.tight_layout()
        out = io.BytesIO()
        fig.savefig(out, format=fmt, metadata=_METADATA[fmt])
    return out.getvalue()


_PROLOGUE = re.compile(r"\A.*?(?=<svg\b)", re.DOTALL)
_METADATA_BLOCK = re.compile(r"\s*<metadata>.*?</metadata>", re.DOTALL)
_XLINK_NS = re.compile(r'\s+xmlns:xlink="[^"]*"')


def inline_svg(figure: Figure, prefix: str) -> str:
    """``figure`` as an ``<svg>`` element to put in an HTML page: no XML prologue or
    metadata, and every id prefixed with ``prefix`` (unique per figure on a page)."""
    text = render_figure(figure, "svg").decode("utf-8")
    text = _PROLOGUE.sub("", text, count=1)
    text = _METADATA_BLOCK.sub("", text, count=1)
    text = _XLINK_NS.sub("", text, count=1)
    text = re.sub(r'\bid="', f'id="{prefix}', text)
    text = text.replace("url(#", f"url(#{prefix}").replace('href="#', f'href="#{prefix}')
    return text.strip() + "\n"
