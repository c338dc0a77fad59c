"""HTML renderer: one self-contained page (inline CSS, figures as base64 PNG, no script).

Every figure is drawn by a Display class of :mod:`skfair.plotting` from the data a section
returned; matplotlib (the ``plot`` extra) is needed. A figure that cannot be drawn becomes a
line in its section, as do the warnings raised while drawing it.
"""

from __future__ import annotations

import base64
import html
import io
import warnings
from functools import partial

from skfair._audit._report import Fields
from skfair._audit._text import format_cell

_CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;
  line-height:1.45;margin:0;background:#f6f8fa}
main{max-width:1180px;margin:0 auto;padding:8px 20px 40px}
header{padding:20px 0 4px}
h1{font-size:1.7em;margin:0 0 4px}
h2{font-size:1.3em;margin:0 0 10px;padding-bottom:4px;border-bottom:1px solid #d0d7de}
nav{font-size:.92em;margin:6px 0 14px;display:flex;flex-wrap:wrap;gap:2px 16px}
nav a{color:#0969da;text-decoration:none}
section{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:14px 18px;
  margin:14px 0}
.table-wrap{overflow-x:auto;margin:8px 0 12px;max-width:100%}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:.92em}
th,td{padding:3px 10px;border-bottom:1px solid #e5e7eb;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
td.num,th.num{text-align:right;white-space:nowrap}
dl{display:grid;grid-template-columns:max-content auto;gap:4px 14px;margin:4px 0}
dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
figure{margin:10px 0 16px}
figure img{display:block;max-width:100%;height:auto;border:1px solid #eaeef2}
figcaption{font-size:.88em;color:#57606a;margin-top:4px}
p{overflow-wrap:anywhere}
p.note{color:#424a53;font-size:.92em}
p.warning{color:#7d4e00;background:#fff8c5;padding:4px 8px;border-radius:4px;font-size:.9em}
p.error{color:#82071e;background:#ffebe9;padding:4px 8px;border-radius:4px}
p.message{color:#57606a;font-style:italic}
.verdict-large,.verdict-fails{color:#82071e;font-weight:600}
.verdict-moderate{color:#9a6700;font-weight:600}
.verdict-ok{color:#1a7f37}
"""

_DPI = 96


def render_html(sections, *, title="Fairness audit"):
    """The report as one self-contained HTML page.

    Parameters
    ----------
    sections : list of Section
        Computed sections (their ``data`` holds what the figures are drawn from).
    title : str, default="Fairness audit"

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
        f'<p class="note">Made by skfair {html.escape(__version__)} '
        "(<code>python -m skfair audit</code>).</p>"
        f"<nav>{nav}</nav></header>\n{body}\n</main>\n</body>\n</html>\n"
    )


def _anchor(section):
    return f"section-{section.name}"


def _section_html(section):
    parts = [f'<section id="{_anchor(section)}">', f"<h2>{html.escape(section.title)}</h2>"]
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
        verdicts = section.data.get("verdicts")
        for block in section.blocks:
            parts.append(_block_html(block))
        if verdicts is not None:
            parts.append("<h3>Reading the disparities</h3>")
            parts.append(_block_html(verdicts, verdict_column=3))
        parts += figures
        parts += [f'<p class="note">{html.escape(note)}</p>' for note in section.notes]
        section.warnings = section.warnings + figure_warnings
    parts += [f'<p class="warning">warning: {html.escape(text)}</p>' for text in section.warnings]
    parts.append("</section>")
    return "\n".join(parts)


def _block_html(block, verdict_column=None):
    if isinstance(block, Fields):
        items = "".join(
            f"<dt>{html.escape(str(key))}</dt><dd>{html.escape(str(value))}</dd>"
            for key, value in block.items.items()
        )
        return f"<dl>{items}</dl>"

    def cell_html(tag, cell, j, text):
        numeric = j > 0 and not isinstance(cell, str)
        classes = ["num"] if numeric else []
        if j == verdict_column:
            classes.append(_verdict_class(text))
        attribute = f' class="{" ".join(classes)}"' if classes else ""
        return f"<{tag}{attribute}>{html.escape(text)}</{tag}>"

    first = block.rows[0] if block.rows else []
    numeric = [
        j > 0 and j < len(first) and not isinstance(first[j], str) for j in range(len(block.header))
    ]
    head = "".join(
        ('<th class="num">' if numeric[j] else "<th>") + html.escape(str(cell)) + "</th>"
        for j, cell in enumerate(block.header)
    )
    rows = "".join(
        "<tr>"
        + "".join(
            cell_html("td", cell, j, format_cell(cell, block.digits)) for j, cell in enumerate(row)
        )
        + "</tr>"
        for row in block.rows
    )
    return (
        f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{rows}</tbody></table></div>"
    )


def _verdict_class(text):
    if text.startswith(("large", "fails")):
        return "verdict-large"
    if text.startswith("moderate"):
        return "verdict-moderate"
    return "verdict-ok"


# ----------------------------------------------------------------------------------------------
# figures: each drawn by a Display of skfair.plotting from the section's data


def _figures(section):
    """<figure> elements of a section; a figure that fails becomes a warning paragraph."""
    builder = _FIGURES.get(section.name)
    if builder is None:
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures = []
    for caption, draw in builder(section.data):
        try:
            display = draw()
            figures.append(_figure_html(display.figure_, caption))
        # A figure that cannot be drawn must not lose the section's numbers.
        except Exception as exc:
            figures.append(
                f'<p class="warning">figure "{html.escape(caption)}" not drawn: '
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


def _interval_figures(data):
    from skfair.plotting import GroupRatesDisplay

    for name, summaries in data.get("summaries", {}).items():
        yield (
            f"{name}: per-group rates with 95 % bootstrap intervals (dotted: all rows)",
            lambda summaries=summaries: GroupRatesDisplay(summaries=summaries).plot(),
        )


def _score_figures(data):
    from skfair.plotting import ScoreDistributionDisplay

    for name, values in data.get("sensitive", {}).items():
        yield (
            f"{name}: score distribution of each group",
            lambda values=values: ScoreDistributionDisplay.from_predictions(
                data["scores"], sensitive_features=values
            ),
        )


def _madd_figures(data):
    from skfair.plotting import MADDDisplay

    for name in data.get("results", {}):
        values = data["sensitive"][name]
        yield (
            f"{name}: histograms of the worst pair and MADD against the bandwidth "
            "(shaded: the stable interval)",
            lambda values=values: _quietly(
                MADDDisplay.from_predictions, None, data["scores"], sensitive_features=values
            ),
        )


def _quietly(function, *args, **kwargs):
    """Call without the small-group warning that the MADD section's note already gives."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return function(*args, **kwargs)


def _repair_figures(data):
    from skfair.plotting import ScoreDistributionDisplay

    for name, values in data.get("sensitive", {}).items():
        yield (
            f"{name}: score distributions before and after the cross-fitted barycenter repair",
            lambda values=values: ScoreDistributionDisplay.from_predictions(
                data["scores"], sensitive_features=values, repaired=data["repaired_scores"]
            ),
        )


def _threshold_figures(data):
    from skfair._audit._sections import _take
    from skfair.plotting import GroupThresholdDisplay

    common = " (one point, common to every group)" if data["constraint"] == "equalized_odds" else ""
    for name, (classifier, rows) in data.get("classifiers", {}).items():
        yield (
            f"{name}: ROC curve of each group on the half of the evaluation rows its thresholds "
            f"were chosen on, upper hulls (dashed) and the operating points chosen for "
            f"{data['constraint']}{common}",
            partial(
                GroupThresholdDisplay.from_estimator,
                classifier,
                _take(data["X"], rows),
                data["y"][rows],
                sensitive_features=data["sensitive"][name][rows],
            ),
        )


def _bias_figures(data):
    from skfair.plotting import BiasExplanationDisplay

    parts = ("total", "positive", "negative", "net")
    for name, explainer in data.get("explainers", {}).items():
        yield (
            f"{name}: bias explanations of the features ({explainer.privileged_group_!r} vs "
            f"{explainer.protected_group_!r})",
            lambda explainer=explainer: BiasExplanationDisplay(
                names=data["feature_names"],
                values={part: explainer.explanations_[part] for part in parts},
                bias=explainer.bias_,
                max_display=8,
            ).plot(),
        )


def _stability_figures(data):
    from skfair._groups import factorize_groups
    from skfair.plotting import StabilityDisplay

    for name, values in data.get("sensitive", {}).items():
        encoding = factorize_groups(values)
        yield (
            f"{name}: per-group means with 95 % intervals (mean ± 1.96 standard errors)",
            lambda encoding=encoding: StabilityDisplay(
                measures=data["per_sample"],
                groups=encoding.codes,
                group_labels=list(encoding.labels),
            ).plot(),
        )


_FIGURES = {
    "intervals": _interval_figures,
    "scores": _score_figures,
    "madd": _madd_figures,
    "repair": _repair_figures,
    "thresholds": _threshold_figures,
    "bias_sources": _bias_figures,
    "stability": _stability_figures,
}
