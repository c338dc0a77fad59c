"""What the Displays share: the axes they draw on, and the parts of their docstrings.

A Display's ``plot`` gets its axes from :func:`axes` (or :func:`panel_axes` for panels side
by side) and ends with :func:`drawn`. Its docstrings name a shared part by a line holding only
``{name}``, which :func:`documented` replaces with :data:`PARTS` ``[name]`` at that
indentation (``{cls}`` within a part is the Display's class name); ``{plot_name}`` gives the
sections of ``plot(ax)`` (``{plot_panels what}``: one Axes per ``what``) and
``{references key ...}`` a References section.
"""

from __future__ import annotations

import numpy as np

from skfair._utils._compat import check_matplotlib_support
from skfair._utils._docstrings import fill_class

PARTS = {
    "explanation_options": """\
kind : {"bar", "waterfall"}, default="bar"
    Bars of the four parts per player, or the waterfall of one part's Shapley-bias
    values.
quantity : {"beta", "shapley"}, default="beta"
    Bar plot values: bias explanations or Shapley-bias values. The waterfall always
    shows Shapley-bias values.
part : {"total", "positive", "negative", "net"}, default="total"
    The waterfall's part.
sort_by : {"total", "positive", "negative", "net"}, default="total"
    Bar plot order (by magnitude for net and for Shapley values).
max_display : int, default=20
    Players shown; the others are summed into one bar.
ax : matplotlib Axes, default=None
    Axes to draw on; a new figure is made when None.""",
    "returns_display": "Returns\n-------\ndisplay : {cls}\n"
    "    The display, plotted; its figure, axes and artists are stored as attributes.",
    "returns_self": "Returns\n-------\nself : {cls}\n"
    "    The display; its figure, axes and artists are stored as attributes.",
    "ax": "ax : matplotlib Axes, default=None\n    A new figure when None.",
    "ax_where": "ax : matplotlib Axes, default=None\n    Where to draw; a new figure when None.",
    "two_axes": "ax : sequence of two matplotlib Axes, default=None\n"
    "    A new figure with two panels when None.",
    "panels": "ax : sequence of matplotlib Axes, default=None\n"
    "    One per {0}; a new figure with the panels side by side when None.",
    "sensitive_features": "sensitive_features : array-like of shape (n_samples,) or "
    "(n_samples, n_attributes)\n"
    "    Sensitive attribute(s) of each sample; several attributes define intersectional groups.",
    "sensitive_features_given": "sensitive_features : array-like, dict or DataFrame\n"
    "    Sensitive attribute(s); 2-D input gives intersectional groups.",
    "sensitive_features_of_estimator": "sensitive_features : array-like, dict or DataFrame, "
    "default=None\n"
    "    Sensitive attribute(s), when the estimator has no ``sensitive_column``.",
    "repair_groups": "sensitive_features : array-like of shape (n_samples,) or "
    "(n_samples, n_attributes)\n"
    "    Groups (joint cells for several attributes).",
    "samples_of_estimator": "X : array-like of shape (n_samples, n_features)\n"
    "    Samples (with the sensitive column(s) in ``sensitive_column`` mode).",
    "cost": "cost : dict, default=None\n"
    '    With ``objective="cost"``, the price of an error:\n'
    '    ``{"false_positive": c_fp, "false_negative": c_fn}``.',
    "hardt": "Hardt, M., Price, E. and Srebro, N. (2016). Equality of Opportunity in Supervised "
    "Learning.\nAdvances in Neural Information Processing Systems 29.",
    "denis": "Denis, C., Elie, R., Hebiri, M. and Hu, F. (2021). Fairness guarantee in "
    "multi-class\nclassification. arXiv:2109.13642.",
    "verger": 'Verger, M., Lallé, S., Bouchet, F. and Luengo, V. (2023). Is Your Model "MADD"? '
    "A Novel\nMetric to Evaluate Algorithmic Fairness for Predictive Student Models. "
    "Proceedings of the 16th\nInternational Conference on Educational Data Mining (EDM 2023).\n\n"
    "Verger, M., Lallé, S., Bouchet, F. and Luengo, V. (2024). Evaluating and Mitigating\n"
    "Algorithmic Unfairness with the MADD Metric. Journal of Educational Data Mining.",
    "miroshnikov": "Miroshnikov, A., Kotsiopoulos, K., Franks, R. and Ravi Kannan, A. (2022). "
    "Wasserstein-based\nfairness interpretability framework for machine learning models. "
    "Machine Learning 111,\n3307-3357.",
}


def _part(name, arguments):
    """The text of the line ``{name arguments...}``."""
    if name == "references":  # {references key ...}: the section, citing PARTS[key] ...
        return "References\n----------\n" + "\n\n".join(PARTS[key] for key in arguments)
    if name.startswith("plot_"):  # {plot_ax}: the sections of plot(ax) with PARTS["ax"]
        ax = PARTS[name[5:]].format(*arguments)  # {plot_panels rate}: "One per rate"
        return f"Parameters\n----------\n{ax}\n\n{PARTS['returns_self']}"
    return PARTS[name]


def documented(cls):
    """Class decorator: fill the shared parts in the docstrings of ``cls`` and its methods."""
    return fill_class(
        cls, lambda name, arguments: _part(name, arguments).replace("{cls}", cls.__name__)
    )


def keep_arguments(display, arguments):
    """Store the arguments of a Display's ``__init__`` (its ``locals()``) as attributes of the
    same names."""
    for name, value in arguments.items():
        if name != "self":
            setattr(display, name, value)


def axes(display, ax, *args, **kwargs):
    """``ax``, or the axes of a new figure ``plt.subplots(*args, **kwargs)``; the error naming
    the ``plot`` extra without matplotlib."""
    check_matplotlib_support(f"{type(display).__name__}.plot")
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(*args, **kwargs)
    return ax


def panel_axes(display, ax, n_panels, figsize):
    """One Axes per panel (a 1-D object array): ``ax``, or the panels side by side, sharing
    their vertical axis, of a new figure."""
    created = ax is None
    ax = axes(display, ax, 1, n_panels, figsize=figsize, sharey=True, squeeze=False)
    return np.atleast_1d(np.asarray(ax[0] if created else ax, dtype=object))


def group_panel_axes(display, ax, n_panels, n_groups):
    """:func:`panel_axes` for panels with one labelled row per group."""
    return panel_axes(display, ax, n_panels, (3.6 * n_panels + 1.5, 1.2 + 0.45 * n_groups))


def drawn(display, ax, *, tight_layout=False):
    """Store ``ax`` and its figure on ``display`` (``ax_``, ``figure_``) and return it."""
    display.ax_ = ax
    display.figure_ = np.ravel(np.asarray(ax, dtype=object))[0].figure
    if tight_layout:
        display.figure_.tight_layout()
    return display
