"""Plain-text and Markdown renderers of the audit's sections."""

from __future__ import annotations

import textwrap

import numpy as np

from skfair._audit._report import Estimate, Fields, GroupSizes, Interval, IntRange

NOT_AVAILABLE = "n/a"
WIDTH = 96


def format_number(value, digits=4):
    """Fixed-point text of a float, ``n/a`` for NaN (an undefined rate)."""
    value = float(value)
    if np.isnan(value):
        return NOT_AVAILABLE
    text = f"{value:.{digits}f}"
    # A tiny negative value rounds to zero: print 0.0000, not -0.0000.
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def format_cell(cell, digits=4):
    """Text of one table cell: counts with thousands separators, floats with ``digits``."""
    if isinstance(cell, Estimate):
        return (
            f"{format_number(cell.value, digits)} "
            f"[{format_number(cell.low, digits)}, {format_number(cell.high, digits)}]"
        )
    if isinstance(cell, Interval):
        return f"[{format_number(cell.low, digits)}, {format_number(cell.high, digits)}]"
    if isinstance(cell, IntRange):
        return f"{cell.low}-{cell.high}"
    if isinstance(cell, GroupSizes):
        return f"{cell.n_groups} ({cell.smallest:,})"
    if isinstance(cell, (bool, np.bool_)):
        return str(bool(cell))
    if isinstance(cell, (int, np.integer)):
        return f"{int(cell):,}"
    if isinstance(cell, (float, np.floating)):
        return format_number(cell, digits)
    return str(cell)


def format_table(header, rows):
    """Plain-text table: the first column left-aligned, the others right-aligned."""
    table = [list(map(str, header))] + [list(map(str, row)) for row in rows]
    widths = [max(len(row[j]) for row in table) for j in range(len(header))]

    def line(row):
        cells = [row[0].ljust(widths[0])] + [
            cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)
        ]
        return "  ".join(cells).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(table[0]), rule] + [line(row) for row in table[1:]])


def _text_block(block):
    if isinstance(block, Fields):
        return "\n".join(
            textwrap.fill(f"{key:<7}: {value}", width=WIDTH, subsequent_indent=" " * 9)
            for key, value in block.items.items()
        )
    rows = [[format_cell(cell, block.digits) for cell in row] for row in block.rows]
    return format_table(block.header, rows)


def section_body_text(section):
    """The text under a section's title: its blocks, notes, warnings, or why it is missing."""
    if section.error is not None:
        parts = [f"error: this section failed: {section.error}"]
    elif section.message is not None:
        parts = [section.message]
    else:
        parts = [_text_block(block) for block in section.blocks]
        if section.notes:
            indent = "  " if len(section.notes) > 1 else ""
            parts.append(
                "\n".join(
                    textwrap.fill(note, width=WIDTH, subsequent_indent=indent)
                    for note in section.notes
                )
            )
    if section.warnings:
        parts.append(
            "\n".join(
                textwrap.fill(f"warning: {text}", width=WIDTH, subsequent_indent="  ")
                for text in section.warnings
            )
        )
    return "\n\n".join(parts).rstrip()


def render_section_text(section):
    """A section under its underlined title."""
    return f"{section.title}\n{'=' * len(section.title)}\n{section_body_text(section)}"


def render_text(sections):
    """The whole report as plain text: the sections separated by blank lines."""
    return "\n\n".join(render_section_text(section) for section in sections) + "\n"


# ----------------------------------------------------------------------------------------------
# Markdown


def _escape(text):
    return str(text).replace("|", "\\|")


def _markdown_block(block):
    if isinstance(block, Fields):
        return "\n".join(f"- **{key}**: {_escape(value)}" for key, value in block.items.items())
    header = [_escape(cell) for cell in block.header]
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join([":---"] + ["---:"] * (len(header) - 1)) + "|",
    ]
    lines += [
        "| " + " | ".join(_escape(format_cell(cell, block.digits)) for cell in row) + " |"
        for row in block.rows
    ]
    return "\n".join(lines)


def render_section_markdown(section):
    """A section as Markdown: a level-2 heading, pipe tables, notes as paragraphs."""
    parts = [f"## {section.title}"]
    if section.error is not None:
        parts.append(f"**Error**: this section failed: {_escape(section.error)}")
    elif section.message is not None:
        parts.append(_escape(section.message))
    else:
        parts += [_markdown_block(block) for block in section.blocks]
        parts += [_escape(note) for note in section.notes]
    parts += [f"> warning: {_escape(text)}" for text in section.warnings]
    return "\n\n".join(parts)


# The first line of the Markdown report; the sections follow, separated by blank lines.
MARKDOWN_HEADING = "# Fairness audit\n\n"
