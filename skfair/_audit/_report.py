"""What a section returns: tables, key-value fields, notes and figures as data, no formatting.

A section function takes an :class:`~skfair._audit._context.AuditContext` and returns a
:class:`Section`. Its tables hold numbers (floats, ints, :class:`Estimate`, :class:`Interval`,
:class:`IntRange`, :class:`GroupSizes`), labels (str) and empty cells (None); its figures are
:class:`Figure` (a caption and a function drawing it). The renderers
(:mod:`~skfair._audit._text`, :mod:`~skfair._audit._json`, :mod:`~skfair._audit._html`) decide
how they are shown and know no section by name, so a new section renders in every format.
:func:`compute_sections` runs the sections one at a time, so a failing section becomes an error
line in its own place and the others still run, and warnings raised while computing a section
become lines of that section.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Estimate:
    """A value with a confidence interval ``[low, high]``; ``signed`` shows a "+" (a gap)."""

    value: float
    low: float
    high: float
    signed: bool = False


class Verdict(str):
    """A table cell holding a verdict (text); the HTML report colours it by severity."""

    __slots__ = ()


class PValue(float):
    """A table cell holding a p-value or q-value: shown with two significant digits (fixed
    decimals would print the small ones, those that matter, as 0)."""

    __slots__ = ()


@dataclass
class Interval:
    """A closed interval ``[low, high]``."""

    low: float
    high: float


@dataclass
class GroupSizes:
    """How many groups an attribute has, and the size of the smallest."""

    n_groups: int
    smallest: int


@dataclass
class IntRange:
    """A range of integers ``low .. high`` (both included)."""

    low: int
    high: int


@dataclass
class Table:
    """Rows of cells under a header; ``digits`` decimals for the floats of the text renderers.

    ``name`` is the sensitive attribute the table is about (None for a table of several);
    ``caption`` a line shown above it. With ``group_rows``, consecutive rows with the same
    first cell form a group of rows, and the renderers show that label once per group.
    """

    header: list
    rows: list
    digits: int = 4
    name: str | None = None
    caption: str | None = None
    group_rows: bool = False


@dataclass
class Fields:
    """Named lines of text, under an optional caption."""

    items: dict
    caption: str | None = None


@dataclass
class Figure:
    """A figure of the HTML report: its caption and a function drawing it.

    ``draw()`` takes no argument and returns a Display of :mod:`skfair.plotting` (anything
    with a ``figure_``) or a matplotlib Figure; it runs only when the HTML page is written,
    so the text and JSON reports need no matplotlib.
    """

    caption: str
    draw: object


@dataclass
class Section:
    """One section of the report.

    Attributes
    ----------
    blocks : list of Table or Fields
        The section's content, in order.
    notes : list of str
        How to read the blocks (conventions, what was computed on which rows).
    message : str or None
        Set instead of blocks when the section does not apply to this audit, saying why.
    data : dict
        Raw results (arrays, fitted objects) for callers of the section; not rendered.
    lead : str or None
        One sentence on what the section answers, shown first; when a section leaves it None
        (as the built-in ones do), :func:`compute_sections` takes the first paragraph of the
        section function's docstring, so it is there also when the section does not apply.
    figures : list of Figure
        Figures of the HTML report, shown after the blocks.
    name, title : str
        Command-line name and title, set by :func:`compute_sections`.
    error : str or None
        Set by :func:`compute_sections` when the section raised; the error's message.
    warnings : list of str
        Warnings raised while the section was computed, set by :func:`compute_sections`.
    """

    blocks: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    message: str | None = None
    data: dict = field(default_factory=dict)
    lead: str | None = None
    figures: list = field(default_factory=list)
    name: str = ""
    title: str = ""
    error: str | None = None
    warnings: list = field(default_factory=list)


def compute_sections(context, sections, names=None, *, progress=None):
    """Compute the selected sections one by one, in the order of ``sections``.

    Parameters
    ----------
    context : AuditContext
    sections : dict of str to (str, callable)
        Command-line name -> (title, section function).
    names : iterable of str, optional
        The sections to compute (default: all).
    progress : callable, optional
        Called as ``progress(position, total, title)`` before each section is computed
        (``position`` from 1).

    Yields
    ------
    Section
        Each section as soon as it is computed. A section that raises an exception is
        yielded with ``error`` set (its message), so one failing section does not lose the
        others; the warnings it raised are in ``warnings``, not printed.
    """
    selected = list(sections) if names is None else [s for s in sections if s in names]
    context.shown_sections = tuple(selected)
    for position, name in enumerate(selected, start=1):
        title, function = sections[name]
        if progress is not None:
            progress(position, len(selected), title)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                section = function(context)
            # Whatever a section raises is reported in its place; the report goes on.
            except Exception as exc:
                section = Section(error=_error_text(exc))
        section.name, section.title = name, title
        if section.lead is None:
            section.lead = _first_paragraph(function.__doc__)
        seen = []
        for warning in caught:
            text = f"{warning.category.__name__}: {warning.message}"
            if text not in seen:
                seen.append(text)
        section.warnings = seen
        yield section


def _first_paragraph(docstring):
    """The first paragraph of a docstring (its summary) on one line, or None."""
    paragraph = (docstring or "").strip().split("\n\n")[0]
    return " ".join(line.strip() for line in paragraph.splitlines()) or None


def _error_text(exc):
    message = str(exc).strip() or type(exc).__name__
    if isinstance(exc, MemoryError):
        message = f"out of memory ({message})"
    return message


def is_missing(value):
    """True for NaN (an undefined rate)."""
    return isinstance(value, (float, np.floating)) and bool(np.isnan(value))
