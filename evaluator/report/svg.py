"""Small inline SVG plots for the report pages: horizontal bars, grouped bars, a histogram
on a log axis with a limit marked, and a forest plot of differences with their intervals.

Each function returns the ``<svg>`` element as :class:`markupsafe.Markup` (text escaped here),
sized in CSS pixels (and scaled down to fit a narrow screen, its text set larger there so
that it stays readable: page.css), styled by the page's
classes (``bar``, ``series-a``, ``limit``...), with a
``<title>`` for screen readers. No plotting library: the pages stay small and open offline.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Sequence
from html import escape

from markupsafe import Markup

from evaluator.summary import pct

__all__ = ["bars", "forest", "grouped_bars", "histogram"]

_ROW = 22  # height of one bar row
_LABEL = 150  # width of the label column
_PLOT = 320  # width of the bars' area
_VALUE = 70  # width of the value column
_MARKED_LIMITS = 6  # distinct limits a histogram draws a line for


def _svg(width: float, height: float, title: str, body: Sequence[str]) -> Markup:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" role="img" '
        f'width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}">'
        f"<title>{escape(title)}</title>"
    )
    return Markup(head + "".join(body) + "</svg>")


def _text(x: float, y: float, text: str, cls: str = "", anchor: str = "start") -> str:
    klass = f' class="{cls}"' if cls else ""
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{klass}>{escape(text[:40])}</text>'


def _label(y: float, label: str, few: bool) -> str:
    """A row's label, right-aligned before the plot, ``few`` after it when the row's group
    has too few problems to trust (the tables' ``few`` mark)."""
    mark = '<tspan class="few-mark"> few</tspan>' if few else ""
    return (
        f'<text x="{_LABEL - 6:.1f}" y="{y:.1f}" text-anchor="end">{escape(label[:40])}{mark}'
        "</text>"
    )


def _whisker(low: float, high: float, y: float, text: str) -> str:
    """An interval from ``low`` to ``high`` (x positions) at height ``y``, capped at both
    ends, with ``text`` as its tooltip."""
    cap = 4
    return (
        f'<g class="whisker"><title>{escape(text)}</title>'
        f'<line x1="{low:.1f}" y1="{y:.1f}" x2="{high:.1f}" y2="{y:.1f}"/>'
        f'<line x1="{low:.1f}" y1="{y - cap:.1f}" x2="{low:.1f}" y2="{y + cap:.1f}"/>'
        f'<line x1="{high:.1f}" y1="{y - cap:.1f}" x2="{high:.1f}" y2="{y + cap:.1f}"/></g>'
    )


Interval = tuple[float, float] | None


def _bar(
    y: float,
    value: float,
    scale: float,
    cls: str,
    text: str,
    interval: Interval = None,
) -> list[str]:
    """One bar from the label column, its ``interval`` (values, as ``value``) as a whisker,
    and ``text`` after both."""

    def x_of(v: float) -> float:
        return _PLOT * max(0.0, min(1.0, v / scale))

    width = x_of(value)
    body = [
        f'<rect class="{escape(cls)}" x="{_LABEL}" y="{y + 3}" width="{width:.1f}" '
        f'height="{_ROW - 6}"/>'
    ]
    end = width
    if interval is not None:
        low, high = x_of(interval[0]), x_of(interval[1])
        tip = f"{pct(interval[0])} to {pct(interval[1])}"
        body.append(_whisker(_LABEL + low, _LABEL + high, y + _ROW / 2, tip))
        end = max(end, high)
    body.append(_text(_LABEL + end + 4, y + 15, text, "value"))
    return body


def bars(
    items: Sequence[tuple[str, float | None]],
    *,
    title: str,
    scale: float | None = None,
    fmt: Callable[[float], str] = pct,
    classes: Sequence[str] | None = None,
    intervals: Sequence[Interval] | None = None,
    few: Sequence[bool] | None = None,
) -> Markup:
    """One horizontal bar per ``(label, value)``; ``scale`` is the value of a full bar
    (default: the largest value); None values are drawn as ``-``. ``intervals``: each
    value's interval, drawn as a whisker; ``few``: the rows marked ``few``."""
    top = scale or max([v for _, v in items if v is not None] + [1e-12])
    body = []
    for row, (label, value) in enumerate(items):
        y = row * _ROW
        body.append(_label(y + 15, label, bool(few and few[row])))
        if value is None:
            body.append(_text(_LABEL + 4, y + 15, "-", "value"))
            continue
        cls = f"bar {classes[row]}" if classes else "bar"
        body += _bar(y, value, top, cls, fmt(value), intervals[row] if intervals else None)
    return _svg(_LABEL + _PLOT + _VALUE, max(1, len(items)) * _ROW + 4, title, body)


def grouped_bars(
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[float]]],
    *,
    title: str,
    scale: float = 100.0,
    intervals: Sequence[Sequence[Interval]] | None = None,
    few: Sequence[bool] | None = None,
) -> Markup:
    """Per label one bar of each series (``series-0``, ``series-1``... classes), values
    in percent of ``scale``, with a legend below; ``intervals``: per series each value's
    interval, drawn as a whisker; ``few``: the labels marked ``few``."""
    body = []
    step = _ROW * len(series) + 8
    for row, label in enumerate(labels):
        y0 = row * step
        body.append(_label(y0 + step / 2 + 1, label, bool(few and few[row])))
        for index, (_, values) in enumerate(series):
            interval = intervals[index][row] if intervals else None
            cls = f"bar series-{index}"
            body += _bar(y0 + index * _ROW, values[row], scale, cls, pct(values[row]), interval)
    legend_y = len(labels) * step + 14
    for index, (name, _) in enumerate(series):
        x = _LABEL + index * 160
        body.append(
            f'<rect class="bar series-{index}" x="{x}" y="{legend_y - 10}" width="12" height="12"/>'
        )
        body.append(_text(x + 16, legend_y, name))
    return _svg(_LABEL + _PLOT + _VALUE, legend_y + 8, title, body)


def histogram(
    values: Sequence[float],
    *,
    title: str,
    unit: str,
    limits: Sequence[float | None] = (),
    bins: int = 40,
) -> Markup:
    """The distribution of positive ``values`` on a log axis from the decade below the
    smallest to the decade above the largest (and the limits), with a count axis. ``limits``
    are each value's own limit (its problem's; None: unknown): every distinct one is marked,
    and the caption counts the values over their own. Zeros are counted in the caption, not
    drawn."""
    own = list(limits) if limits else [None] * len(values)
    positive = sorted(v for v in values if v > 0)
    zeros = len(values) - len(positive)
    width, height, left, bottom = 560, 204, 52, 44
    plot_w, plot_h = width - left - 36, height - bottom - 24  # room for the last tick's label
    if not positive:
        body = [_text(left, 40, f"no measurements ({zeros} zero)")]
        return _svg(width, 60, title, body)
    distinct = sorted({limit for limit in own if limit})
    marked = distinct[:_MARKED_LIMITS]
    top_value = max([positive[-1], *marked])
    low = math.floor(math.log10(positive[0]))
    high = max(low + 1, math.ceil(math.log10(top_value * 1.0001)))
    edges = [10 ** (low + (high - low) * i / bins) for i in range(bins + 1)]
    counts = [0] * bins
    for value in positive:
        counts[min(bins - 1, max(0, bisect_right(edges, value) - 1))] += 1
    tallest = max(counts)

    def x_of(value: float) -> float:
        return left + plot_w * (math.log10(value) - low) / (high - low)

    body = []
    for index, count in enumerate(counts):
        if not count:
            continue
        bar_h = plot_h * count / tallest
        x0, x1 = x_of(edges[index]), x_of(edges[index + 1])
        body.append(
            f'<rect class="bar" x="{x0:.1f}" y="{24 + plot_h - bar_h:.1f}" '
            f'width="{max(1.0, x1 - x0 - 1):.1f}" height="{bar_h:.1f}"/>'
        )
    axis_y = 24 + plot_h
    body.append(
        f'<line class="axis" x1="{left}" y1="{axis_y}" x2="{left + plot_w}" y2="{axis_y}"/>'
    )
    for decade in range(low, high + 1):
        x = x_of(10**decade)
        body.append(
            f'<line class="tick" x1="{x:.1f}" y1="{axis_y}" x2="{x:.1f}" y2="{axis_y + 4}"/>'
        )
        body.append(_text(x, axis_y + 16, _decade_label(decade, unit), "tick", "middle"))
    body += _count_axis(left, 24, plot_h, tallest)
    if zeros:  # below the axis: the limits' labels take the top
        body.append(_text(left + plot_w, axis_y + 32, f"{zeros} at 0 not shown", "caption", "end"))
    if marked:
        for limit in marked:
            x = x_of(limit)
            body.append(f'<line class="limit" x1="{x:.1f}" y1="18" x2="{x:.1f}" y2="{axis_y}"/>')
        over = sum(v > limit for v, limit in zip(values, own, strict=True) if limit)
        label = _limits_label(distinct, unit, over)
        x = x_of(marked[0])
        anchor = "end" if x > left + plot_w / 2 else "start"
        body.append(_text(x + (-4 if anchor == "end" else 4), 14, label, "limit-label", anchor))
    return _svg(width, height, title, body)


def _count_axis(left: float, top: float, plot_h: float, tallest: int) -> list[str]:
    """The vertical axis of a histogram: 0, the middle and the tallest bar's count."""
    body = [f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}"/>']
    marks = sorted({0, tallest // 2, tallest}) if tallest > 1 else [0, tallest]
    for count in marks:
        y = top + plot_h * (1 - count / tallest)
        body.append(f'<line class="tick" x1="{left - 4}" y1="{y:.1f}" x2="{left}" y2="{y:.1f}"/>')
        body.append(_text(left - 6, y + 4, str(count), "tick", "end"))
    body.append(
        f'<text class="tick" text-anchor="middle" transform="translate(12 {top + plot_h / 2:.1f}) '
        'rotate(-90)">tests</text>'
    )
    return body


def _limits_label(limits: Sequence[float], unit: str, over: int) -> str:
    """``limit 1 s (1 over)``, or with several limits ``limits 1-2 s (3 over their own)``."""
    if len(limits) == 1:
        return f"limit {_number(limits[0])} {unit} ({over} over)"
    return f"limits {_number(limits[0])}-{_number(limits[-1])} {unit} ({over} over their own)"


def forest(
    rows: Sequence[tuple[str, float, float, float]],
    *,
    title: str,
    unit: str = "pp",
    few: Sequence[bool] | None = None,
) -> Markup:
    """Per ``(label, estimate, low, high)`` a point and its interval on a shared axis
    through zero; ``few``: the rows marked ``few``."""
    span = max([abs(v) for _, e, lo, hi in rows for v in (e, lo, hi)] + [1.0]) * 1.1
    body = []

    def x_of(value: float) -> float:
        return _LABEL + _PLOT * (value + span) / (2 * span)

    height = len(rows) * _ROW + 24
    zero = x_of(0.0)
    body.append(f'<line class="axis" x1="{zero:.1f}" y1="0" x2="{zero:.1f}" y2="{height - 20}"/>')
    for row, (label, estimate, low, high) in enumerate(rows):
        y = row * _ROW + 11
        body.append(_label(y + 4, label, bool(few and few[row])))
        body.append(
            f'<line class="interval" x1="{x_of(low):.1f}" y1="{y}" x2="{x_of(high):.1f}" y2="{y}"/>'
        )
        body.append(f'<circle class="estimate" cx="{x_of(estimate):.1f}" cy="{y}" r="4"/>')
        body.append(_text(_LABEL + _PLOT + 6, y + 4, f"{estimate:+.1f} {unit}", "value"))
    for value in (-span / 1.1, 0.0, span / 1.1):
        body.append(_text(x_of(value), height - 6, f"{value:+.1f}", "tick", "middle"))
    return _svg(_LABEL + _PLOT + _VALUE + 10, height, title, body)


def _number(value: float) -> str:
    return f"{value:g}"


def _decade_label(decade: int, unit: str) -> str:
    """``1 ms``, ``10 s``, ``100 MB``...: the tick at ``10**decade`` of ``unit``."""
    value = 10.0**decade
    if unit == "s" and value < 1:
        return f"{value * 1000:g} ms"
    return f"{value:g} {unit}"
