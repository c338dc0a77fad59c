"""HTML renderer: one self-contained page (inline CSS, figures as base64 PNG, no script).

The renderer knows no section by name: it shows each section's lead, blocks (fields and
tables), figures (:class:`~skfair._audit._report.Figure`, drawn here, so matplotlib -- the
``plot`` extra -- is needed) and notes. A figure that cannot be drawn becomes a line in its
section, as do the warnings raised while drawing it. The page prints without hidden columns:
tables wrap instead of scrolling on paper and on narrow screens.
"""

from __future__ import annotations

import base64
import html
import io
import warnings

from skfair._audit._report import Fields, Verdict
from skfair._audit._text import format_cell, text_columns

_CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;
  line-height:1.4;margin:0;background:#f6f8fa}
main{max-width:1180px;margin:0 auto;padding:4px 20px 40px}
header{padding:12px 0 0}
h1{font-size:1.5em;margin:0}
h2{font-size:1.3em;margin:0 0 6px;padding-bottom:4px;border-bottom:1px solid #d0d7de}
h3{font-size:1em;margin:10px 0 4px}
header p{margin:2px 0}
nav{font-size:.88em;margin:4px 0 8px;display:flex;flex-wrap:wrap;gap:0 14px}
nav a{color:#0969da;text-decoration:none}
section{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:10px 18px;
  margin:10px 0}
.table-wrap{overflow-x:auto;margin:6px 0 10px;max-width:100%}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:.9em}
caption{text-align:left;font-weight:600;padding:2px 0 4px;caption-side:top}
th,td{padding:2px 10px;border-bottom:1px solid #e5e7eb;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
td.num,th.num{text-align:right;white-space:nowrap}
th.group{background:#fff;border-right:1px solid #e5e7eb}
dl{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:2px 0 8px}
dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
/* Figures side by side when they fit; a caption wraps at its figure's width. */
.figures{display:flex;flex-wrap:wrap;gap:0 18px;align-items:flex-start}
figure{margin:10px 0 12px;max-width:100%;display:table;table-layout:fixed}
figure img{display:block;max-width:100%;height:auto;border:1px solid #eaeef2}
figcaption{display:table-caption;caption-side:bottom;font-size:.88em;color:#57606a;
  margin-top:4px}
p{overflow-wrap:anywhere;margin:6px 0}
p.lead{font-size:1.02em;color:#1f2328;font-style:italic;margin:2px 0 8px}
p.note{color:#424a53;font-size:.9em}
p.warning{color:#7d4e00;background:#fff8c5;padding:4px 8px;border-radius:4px;font-size:.9em}
p.error{color:#82071e;background:#ffebe9;padding:4px 8px;border-radius:4px}
p.message{color:#57606a;font-style:italic}
.verdict-large{color:#82071e;font-weight:600}
.verdict-moderate{color:#9a6700;font-weight:600}
.verdict-equal{color:#1a7f37}
.verdict-other{color:#57606a}
/* On paper and on narrow screens nothing may hide behind a scrollbar: cells wrap. */
@media print, (max-width: 820px){
  body{background:#fff}
  main{max-width:none;padding:0 4px}
  nav{display:none}
  section{border:none;border-top:1px solid #d0d7de;border-radius:0;padding:6px 0;margin:6px 0}
  .table-wrap{overflow:visible}
  table{font-size:.8em;width:100%}
  th,td{padding:1px 4px;overflow-wrap:anywhere}
  /* Numbers and intervals wrap at their spaces only, never inside a number. */
  td.num,th.num{white-space:normal;overflow-wrap:normal}
  figure{break-inside:avoid}
  h2{break-after:avoid}
}
"""

_DPI = 96
# The CSS class of each verdict of the summary (other verdict cells: "verdict-other").
_VERDICT_CLASSES = {
    "large gap": "verdict-large",
    "moderate gap": "verdict-moderate",
    "about equal": "verdict-equal",
}


def render_html(sections, *, title="Fairness audit", command="python -m skfair audit", date=None):
    """The report as one self-contained HTML page.

    Parameters
    ----------
    sections : list of Section
        Computed sections (their ``figures`` are drawn here).
    title : str, default="Fairness audit"
    command : str, default="python -m skfair audit"
        The command that made the report, as it was run.
    date : str, optional
        When the report was made (shown in the header).

    Returns
    -------
    page : str
    """
    from skfair import __version__

    sections = list(sections)
    nav = "".join(
        f'<a href="#{_anchor(section)}">{html.escape(section.title)}</a>' for section in sections
    )
    body = "\n".join(_section_html(section) for section in sections)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
        f"<header><h1>{html.escape(title)}</h1>"
        f'<p class="note">Made by skfair {html.escape(__version__)}'
        + ("" if date is None else f" on {html.escape(date)}")
        + f" with <code>{html.escape(command)}</code></p>"
        f"<nav>{nav}</nav></header>\n{body}\n</main>\n</body>\n</html>\n"
    )


def _anchor(section):
    return f"section-{section.name}"


def _section_html(section):
    parts = [f'<section id="{_anchor(section)}">', f"<h2>{html.escape(section.title)}</h2>"]
    if section.lead:
        parts.append(f'<p class="lead">{html.escape(section.lead)}</p>')
    if section.error is not None:
        parts.append(f'<p class="error">This section failed: {html.escape(section.error)}</p>')
    elif section.message is not None:
        parts.append(f'<p class="message">{html.escape(section.message)}</p>')
    else:
        figure_warnings = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            figures = _figures(section)
        for warning in caught:
            text = f"{warning.category.__name__}: {warning.message}"
            if text not in section.warnings and text not in figure_warnings:
                figure_warnings.append(text)
        parts += [_block_html(block) for block in section.blocks]
        if figures:
            parts.append(f'<div class="figures">{"".join(figures)}</div>')
        parts += [f'<p class="note">{html.escape(note)}</p>' for note in section.notes]
        section.warnings = section.warnings + figure_warnings
    parts += [f'<p class="warning">warning: {html.escape(text)}</p>' for text in section.warnings]
    parts.append("</section>")
    return "\n".join(parts)


def _block_html(block):
    if isinstance(block, Fields):
        items = "".join(
            f"<dt>{html.escape(str(key))}</dt><dd>{html.escape(str(value))}</dd>"
            for key, value in block.items.items()
        )
        caption = f"<h3>{html.escape(block.caption)}</h3>" if block.caption else ""
        return f"{caption}<dl>{items}</dl>"
    text = text_columns(block.rows)
    numeric = [j > 0 and j not in text for j in range(len(block.header))]

    def cell_html(cell, j):
        classes = ["num"] if numeric[j] else []
        if isinstance(cell, Verdict):
            classes.append(_VERDICT_CLASSES.get(str(cell), "verdict-other"))
        attribute = f' class="{" ".join(classes)}"' if classes else ""
        return f"<td{attribute}>{html.escape(format_cell(cell, block.digits))}</td>"

    head = "".join(
        ('<th class="num">' if numeric[j] else "<th>") + html.escape(str(cell)) + "</th>"
        for j, cell in enumerate(block.header)
    )
    rows = []
    for k, row in enumerate(block.rows):
        cells = [cell_html(cell, j) for j, cell in enumerate(row)]
        if block.group_rows:
            # The group's label once, spanning its rows.
            if k > 0 and block.rows[k - 1][0] == row[0]:
                cells = cells[1:]
            else:
                span = next(
                    (n for n, other in enumerate(block.rows[k:]) if other[0] != row[0]),
                    len(block.rows) - k,
                )
                label = html.escape(format_cell(row[0], block.digits))
                cells[0] = f'<th class="group" rowspan="{span}" scope="rowgroup">{label}</th>'
        rows.append("<tr>" + "".join(cells) + "</tr>")
    caption = f"<caption>{html.escape(block.caption)}</caption>" if block.caption else ""
    return (
        f'<div class="table-wrap"><table>{caption}<thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


# ----------------------------------------------------------------------------------------------
# figures: drawn from each section's Figure list


def _figures(section):
    """<figure> elements of a section; a figure that fails becomes a warning paragraph."""
    if not section.figures:
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures = []
    for figure in section.figures:
        try:
            drawn = figure.draw()
            figures.append(_figure_html(getattr(drawn, "figure_", drawn), figure.caption))
        # A figure that cannot be drawn must not lose the section's numbers.
        except Exception as exc:
            figures.append(
                f'<p class="warning">figure "{html.escape(figure.caption)}" not drawn: '
                f"{html.escape(str(exc))}</p>"
            )
        finally:
            plt.close("all")
    return figures


def _figure_html(figure, caption):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=_DPI, bbox_inches="tight")
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return (
        f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(caption)}">'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
    )
