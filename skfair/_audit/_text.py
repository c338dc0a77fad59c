"""Plain-text and Markdown renderers of the audit's sections."""

from __future__ import annotations

import re
import textwrap

import numpy as np

from skfair._audit._report import Estimate, Fields, GroupSizes, Interval, IntRange, PValue

NOT_AVAILABLE = "n/a"
WIDTH = 96
# Indentation of the rows under a group label (tables with group_rows).
GROUP_INDENT = "  "


def format_number(value, digits=4, *, signed=False):
    """Fixed-point text of a float, ``n/a`` for NaN (an undefined rate); ``+`` when signed."""
    value = float(value)
    if np.isnan(value):
        return NOT_AVAILABLE
    text = f"{value:{'+' if signed else ''}.{digits}f}"
    # A tiny negative value rounds to zero: print 0.0000 (+0.0000 when signed), not -0.0000.
    if float(text) == 0:
        text = ("+" if signed else "") + text.lstrip("+-")
    return text


def format_cell(cell, digits=4):
    """Text of one table cell: counts with thousands separators, floats with ``digits``."""
    if cell is None:
        return ""
    if isinstance(cell, Estimate):
        signed = cell.signed
        return (
            f"{format_number(cell.value, digits, signed=signed)} "
            f"[{format_number(cell.low, digits, signed=signed)}, "
            f"{format_number(cell.high, digits, signed=signed)}]"
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
    if isinstance(cell, PValue):
        return format_p_value(cell)
    if isinstance(cell, (float, np.floating)):
        return format_number(cell, digits)
    return str(cell)


def format_p_value(value):
    """Two significant digits; ``< 1e-300`` for a value that underflowed to 0."""
    value = float(value)
    if np.isnan(value):
        return NOT_AVAILABLE
    return "< 1e-300" if value == 0 else f"{value:.2g}"


def text_columns(rows):
    """Columns whose cells are all text (or empty): they are left-aligned, numbers right."""
    if not rows:
        return set()
    return {
        j
        for j in range(len(rows[0]))
        if all(cell is None or isinstance(cell, str) for cell in (row[j] for row in rows))
    }


def format_table(header, rows, *, left=frozenset({0})):
    """Plain-text table: the columns in ``left`` left-aligned, the others right-aligned.

    ``rows`` are lists of text; a row that is a plain string is a label line spanning the
    table (a group of the rows below it).
    """
    table = [list(map(str, header))] + [row for row in rows if not isinstance(row, str)]
    widths = [max(len(row[j]) for row in table) for j in range(len(header))]

    def line(row):
        cells = [
            cell.ljust(width) if j in left or j == 0 else cell.rjust(width)
            for j, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        return "  ".join(cells).rstrip()

    rule = "  ".join("-" * width for width in widths)
    body = [row if isinstance(row, str) else line(row) for row in rows]
    return "\n".join([line(table[0]), rule, *body])


def _wrap(text, indent=""):
    return textwrap.fill(text, width=WIDTH, subsequent_indent=indent)


def _text_block(block):
    if isinstance(block, Fields):
        width = min(max((len(str(key)) for key in block.items), default=0), 16)
        lines = [
            textwrap.fill(
                f"{key:<{width}}: {value}", width=WIDTH, subsequent_indent=" " * (width + 2)
            )
            for key, value in block.items.items()
        ]
        return "\n".join(([f"{block.caption}:"] if block.caption else []) + lines)
    left = text_columns(block.rows)
    if block.group_rows:
        rows, previous = [], object()
        for row in block.rows:
            if row[0] != previous:
                rows.append(format_cell(row[0], block.digits))
                previous = row[0]
            cells = [format_cell(cell, block.digits) for cell in row[1:]]
            rows.append([GROUP_INDENT + cells[0], *cells[1:]])
        table = format_table(block.header[1:], rows, left={j - 1 for j in left if j > 0})
    else:
        rows = [[format_cell(cell, block.digits) for cell in row] for row in block.rows]
        table = format_table(block.header, rows, left=left)
    return (_wrap(block.caption) + "\n" if block.caption else "") + table


def section_body_text(section):
    """The text under a section's title and lead: blocks, notes, warnings, or why it is missing."""
    parts = []
    if section.error is not None:
        parts.append(f"error: this section failed: {section.error}")
    elif section.message is not None:
        parts.append(section.message)
    else:
        parts += [_text_block(block) for block in section.blocks]
        if section.notes:
            indent = "  " if len(section.notes) > 1 else ""
            parts.append("\n".join(_wrap(note, indent) for note in section.notes))
    if section.warnings:
        parts.append("\n".join(_wrap(f"warning: {text}", "  ") for text in section.warnings))
    return "\n\n".join(parts).rstrip()


def render_section_text(section):
    """A section under its underlined title and its lead (the question it answers)."""
    lead = f"{_wrap(section.lead)}\n\n" if section.lead else ""
    return f"{section.title}\n{'=' * len(section.title)}\n{lead}{section_body_text(section)}"


def render_text(sections):
    """The whole report as plain text: the sections separated by blank lines."""
    return "\n\n".join(render_section_text(section) for section in sections) + "\n"


def text_heading(command, date):
    """The first lines of the text report: what made it, with which command, and when."""
    from skfair import __version__

    title = f"Fairness audit, made by skfair {__version__} on {date}"
    return f"{title}\n{'#' * len(title)}\n{_shell_lines(f'command: {command}')}\n"


def _shell_lines(text):
    """``text`` (a shell command) in lines of at most WIDTH columns where the words allow,
    continued with backslashes, so that it can be copied and run again as it stands."""
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > WIDTH - 2:
            lines.append(line + " \\")
            line = "    " + word
        else:
            line = f"{line} {word}" if line else word
    return "\n".join([*lines, line])


# ----------------------------------------------------------------------------------------------
# Markdown

# Characters with a meaning in Markdown (raw HTML included): backslash-escaped in all text
# that comes from the data or the sections, so that a group named "<b>x</b>" shows as such.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|#&~])")


def escape_markdown(text):
    """``text`` with Markdown's special characters (and raw HTML) escaped."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))


def _markdown_block(block):
    if isinstance(block, Fields):
        caption = [f"**{escape_markdown(block.caption)}**", ""] if block.caption else []
        return "\n".join(
            caption
            + [
                f"- **{escape_markdown(key)}**: {escape_markdown(value)}"
                for key, value in block.items.items()
            ]
        )
    header = [escape_markdown(cell) for cell in block.header]
    left = text_columns(block.rows)
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join(":---" if j in left or j == 0 else "---:" for j in range(len(header))) + "|",
    ]
    previous = object()
    for row in block.rows:
        cells = [escape_markdown(format_cell(cell, block.digits)) for cell in row]
        if block.group_rows:
            cells[0], previous = ("" if row[0] == previous else cells[0]), row[0]
        lines.append("| " + " | ".join(cells) + " |")
    caption = [escape_markdown(block.caption), ""] if block.caption else []
    return "\n".join(caption + lines)


def render_section_markdown(section):
    """A section as Markdown: a level-2 heading, the lead, pipe tables, notes as paragraphs."""
    parts = [f"## {escape_markdown(section.title)}"]
    if section.lead:
        parts.append(f"*{escape_markdown(section.lead)}*")
    if section.error is not None:
        parts.append(f"**Error**: this section failed: {escape_markdown(section.error)}")
    elif section.message is not None:
        parts.append(escape_markdown(section.message))
    else:
        parts += [_markdown_block(block) for block in section.blocks]
        parts += [escape_markdown(note) for note in section.notes]
    parts += [f"> warning: {escape_markdown(text)}" for text in section.warnings]
    return "\n\n".join(parts)


# The first line of the Markdown report; the sections follow, separated by blank lines.
MARKDOWN_HEADING = "# Fairness audit\n\n"
