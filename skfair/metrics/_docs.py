"""Numpydoc docstrings of the generated metrics, assembled from shared parts.

The metric factories (the rate comparisons of :mod:`skfair.metrics._rates`, the fixed-``alpha``
inequality indices of :mod:`skfair.metrics._inequality`) describe each function by its parts;
:func:`numpydoc` writes them out in numpydoc's order, indented as a docstring in a function
body, so that the functions read in ``help()``, the API reference and numpydoc's validation as
hand-written ones do.
"""

from __future__ import annotations

import textwrap

from skfair._utils._docstrings import with_parts

# Parameters that every group metric documents alike: name -> (type, description).
PARAMETERS = {
    "sensitive_features": (
        "array-like of shape (n_samples,) or (n_samples, n_attributes), or dict",
        "Sensitive attribute(s); several attributes define intersectional groups.",
    ),
    "privileged_group": (
        "label, tuple of labels, or list of them, default=None",
        "Group(s) whose samples form the privileged side, compared with the other samples (see "
        "``disadvantaged``) for a signed result. None compares every pair of groups. A tuple "
        "gives one value per attribute for 2-D input.",
    ),
    "disadvantaged": (
        '{"pooled", "each"}, default="pooled"',
        "With ``privileged_group`` and several other groups: compare them pooled with the "
        "privileged group(s), or each on its own and keep the comparison furthest from parity "
        "(see :mod:`skfair.metrics`).",
    ),
    "pos_label": (
        "int, float, bool or str, default=None",
        "The favourable label. Inferred as 1 (or True) only for labels within {0, 1}, {-1, 1} "
        "or {False, True}.",
    ),
    "sample_weight": (
        "array-like of shape (n_samples,), default=None",
        "Sample weights; None weighs every sample equally.",
    ),
}

REFERENCES = {
    "hardt": 'M. Hardt, E. Price and N. Srebro, "Equality of Opportunity in Supervised Learning", '
    "NeurIPS 2016.",
    "fairlearn": 'H. Weerts, M. Dudik, R. Edgar, A. Jalali, R. Lutz and M. Madaio, "Fairlearn: '
    'Assessing and Improving Fairness of AI Systems", JMLR 24(257), 2023.',
    "aif360": 'R. K. E. Bellamy et al., "AI Fairness 360: An Extensible Toolkit for Detecting and '
    'Mitigating Algorithmic Bias", IBM Journal of Research and Development 63(4/5), 2019.',
    "chouldechova": 'A. Chouldechova, "Fair Prediction with Disparate Impact: A Study of Bias in '
    'Recidivism Prediction Instruments", Big Data 5(2), 2017.',
    "calders": 'T. Calders and S. Verwer, "Three naive Bayes approaches for discrimination-free '
    'classification", Data Mining and Knowledge Discovery 21(2), 2010.',
    "feldman": "M. Feldman, S. A. Friedler, J. Moeller, C. Scheidegger and S. Venkatasubramanian, "
    '"Certifying and removing disparate impact", KDD 2015.',
    "virny": 'D. Herasymuk, F. Arif Khan and J. Stoyanovich, "Responsible Model Selection with '
    'Virny and VirnyView", SIGMOD-Companion 2024.',
    "hullermeier": 'E. Hüllermeier and W. Waegeman, "Aleatoric and epistemic uncertainty in '
    'machine learning: an introduction to concepts and methods", Machine Learning 110, 2021.',
    "speicher": "T. Speicher, H. Heidari, N. Grgic-Hlaca, K. P. Gummadi, A. Singla, A. Weller and "
    'M. B. Zafar, "A Unified Approach to Quantifying Algorithmic Unfairness: Measuring '
    'Individual & Group Unfairness via Inequality Indices", KDD 2018.',
}


def numpydoc(
    name,
    *,
    summary,
    description,
    parameters,
    returns,
    see_also,
    references,
    example,
    notes="",
    returned="float",
):
    """The docstring of the public function ``name``.

    ``parameters``: ``(name, type, description)`` triples; ``returns``: the description of
    the returned value, of type ``returned``; ``see_also``: ``(name, description)`` pairs;
    ``references``: keys of :data:`REFERENCES` or citations; ``example``: the doctest lines
    after the import.
    """
    sections = [summary, fill(description)]
    sections.append(
        "Parameters\n----------\n"
        + "\n".join(f"{parameter} : {kind}\n{indent(text)}" for parameter, kind, text in parameters)
    )
    sections.append(f"Returns\n-------\n{returned}\n" + indent(returns))
    sections.append("See Also\n--------\n" + "\n".join(f"{n} : {t}" for n, t in see_also))
    if notes:
        sections.append("Notes\n-----\n" + fill(notes))
    sections.append(
        "References\n----------\n"
        + "\n".join(
            wrap(f".. [{k}] {REFERENCES.get(key, key)}", subsequent_indent="   ")
            for k, key in enumerate(references, start=1)
        )
    )
    sections.append(f"Examples\n--------\n>>> from skfair.metrics import {name}\n{example}")
    # Indented as a docstring written in a function body (first line excepted).
    return textwrap.indent("\n\n".join(sections), "    ").lstrip() + "\n"


def documented(**parts):
    """Decorate a metric with its :func:`numpydoc` docstring, written from ``parts``."""

    def decorate(function):
        function.__doc__ = numpydoc(function.__name__, **parts)
        return function

    return decorate


def example(name, y_true, y_pred, groups, calls):
    """Doctest lines: the data, then ``round(name(...), 4)`` and its output for each
    ``(keyword arguments, output)`` of ``calls``."""
    lines = [] if y_true is None else [f">>> y_true = {list(y_true)}"]
    lines.append(f">>> y_pred = {list(y_pred)}")
    lines.append(">>> groups = [" + ", ".join(f'"{g}"' for g in groups) + "]")
    data = "None, y_pred" if y_true is None else "y_true, y_pred"
    for keywords, output in calls:
        arguments = ", ".join(filter(None, [data, "sensitive_features=groups", keywords]))
        lines += [f">>> round({name}(", f"...     {arguments}), 4)", output]
    return "\n".join(lines)


def wrap(text, initial_indent="", subsequent_indent=None):
    """``text`` as lines of at most 92 characters (96 in the function body)."""
    return textwrap.fill(
        " ".join(text.split()),
        92,
        initial_indent=initial_indent,
        subsequent_indent=initial_indent if subsequent_indent is None else subsequent_indent,
        break_long_words=False,
        break_on_hyphens=False,
    )


def fill(text):
    """Paragraphs refilled; a bulleted list item by item."""
    paragraphs = []
    for paragraph in text.split("\n\n"):
        if paragraph.startswith("- "):
            items = paragraph[2:].split("\n- ")
            paragraphs.append(
                "\n".join(wrap(f"- {item}", subsequent_indent="  ") for item in items)
            )
        else:
            paragraphs.append(wrap(paragraph))
    return "\n\n".join(paragraphs)


def indent(text):
    return wrap(text, "    ")


# Docstring parts that several hand-written docstrings share, as rendered (numpydoc text
# without the docstring's indentation): a line ``{name}`` in a docstring decorated with
# :func:`shared` stands for PARTS[name].
PARTS = {
    "references_miroshnikov": """\
References
----------
.. [1] A. Miroshnikov, K. Kotsiopoulos, R. Franks and A. Ravi Kannan, "Wasserstein-based
   fairness interpretability framework for machine learning models", Machine Learning
   111, 3307-3357 (2022), arXiv:2011.03156.""",
    "references_denis_hardt": """\
References
----------
.. [1] C. Denis, R. Elie, M. Hebiri and F. Hu, "Fairness guarantee in multi-class
   classification", arXiv:2109.13642, 2021.
.. [2] M. Hardt, E. Price and N. Srebro, "Equality of opportunity in supervised
   learning", NeurIPS 2016.""",
    "references_buitinck": """\
References
----------
.. [1] L. Buitinck et al., "API design for machine learning software: experiences from
   the scikit-learn project", ECML PKDD Workshop on Languages for Data Mining and Machine
   Learning, 2013.""",
    "returns_scorer": """\
Returns
-------
scorer : callable
    ``scorer(estimator, X, y, *, sensitive_features=None, sample_weight=None) -> float``.""",
    "references_virny": """\
References
----------
.. [1] D. Herasymuk, F. Arif Khan and J. Stoyanovich, "Responsible Model Selection with
   Virny and VirnyView", SIGMOD-Companion 2024.""",
    "sensitive_features": """\
sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), or dict
    Sensitive attribute(s); several attributes define intersectional groups.""",
    "pos_label": """\
pos_label : int, float, bool or str, default=None
    The favourable label. Inferred as 1 (or True) only for labels within {0, 1}, {-1, 1} or
    {False, True}.""",
    "sample_weight": """\
sample_weight : array-like of shape (n_samples,), default=None
    Sample weights; None weighs every sample equally.""",
    "y_true_if_conditioning": """\
y_true : array-like of shape (n_samples,) or None
    Class labels; used only when ``condition_on_y=True``.""",
    "disadvantaged_pairs": """\
disadvantaged : {"pooled", "each"}, default="pooled"
    With ``privileged_group`` and several other groups: compare their samples pooled with
    the privileged group(s), or each other group on its own, the pairs then combined by
    ``agg`` (see :mod:`skfair.metrics`).""",
}


def shared(documented=None, *, parts=None):
    """Decorator: fill the lines ``{name}`` of the docstring of a function, or of a class and
    its methods, with PARTS[name] or ``parts[name]`` (the parts of one module);
    ``@shared`` or ``@shared(parts=...)``."""
    decorate = with_parts(PARTS if parts is None else {**PARTS, **parts})
    return decorate if documented is None else decorate(documented)
