"""The fairness audit behind ``python -m skfair audit``.

An audit is an :class:`AuditContext` (a fitted model, its predictions on evaluation data, the
sensitive attributes of those rows, in :mod:`._context`) and an ordered list of sections
(:mod:`._sections`). A section returns a :class:`~._report.Section` holding data (tables of
numbers and labels, notes), never formatted text; the renderers turn sections into text or
Markdown (:mod:`._text`), JSON (:mod:`._json`) or a self-contained HTML page (:mod:`._html`).
:func:`~._report.compute_sections` computes them one at a time, so each can be written out as
soon as it is ready and a failing section does not lose the others.
"""

from skfair._audit._context import (
    AuditContext,
    adult_context,
    check_privileged,
    csv_context,
    plain_model,
    write_predictions,
)
from skfair._audit._report import Section, compute_sections
from skfair._audit._sections import SECTIONS
from skfair._audit._text import render_text


def run_audit(context, sections=None):
    """The report as plain text: each selected section under its title, in SECTIONS order."""
    return render_text(compute_sections(context, SECTIONS, sections))


__all__ = [
    "SECTIONS",
    "AuditContext",
    "Section",
    "adult_context",
    "check_privileged",
    "compute_sections",
    "csv_context",
    "plain_model",
    "render_text",
    "run_audit",
    "write_predictions",
]
