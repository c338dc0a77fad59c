"""Plots of bias explanations: the paper's bias explanation plot and a Shapley-bias waterfall."""

from __future__ import annotations

import numpy as np

from skfair._utils._compat import check_matplotlib_support
from skfair._utils._groups import group_text
from skfair.plotting._display import axes, documented, drawn, keep_arguments

_PARTS = ("total", "positive", "negative", "net")
_COLORS = {"total": "0.45", "positive": "tab:red", "negative": "tab:blue", "net": "tab:purple"}


@documented
class BiasExplanationDisplay:
    """Bias explanations of a :class:`~skfair.explain.BiasExplainer`, as bars or a waterfall.

    - ``kind="bar"``: the paper's bias explanation plot (BEP): per feature (or feature group)
      four horizontal bars, total, positive, negative and net, of the bias explanations
      (``quantity="beta"``) or of the Shapley-bias values (``quantity="shapley"``).
    - ``kind="waterfall"``: the Shapley-bias values of one ``part`` accumulated from 0 to the
      model bias ``bias_[part]``, which shows their additivity (Lemma 4.6).

    Use :meth:`from_explainer` or :meth:`from_estimator` to build one.

    Parameters
    ----------
    names : array-like of str
        Player names.
    values : dict of str to ndarray
        ``"total"``, ``"positive"``, ``"negative"``, ``"net"``: one value per player.
    bias : dict
        The model bias parts (for the waterfall's end).
    kind : {"bar", "waterfall"}, default="bar"
        Bars of the four parts per player, or the waterfall of one part's Shapley-bias values.
    part : {"total", "positive", "negative", "net"}, default="total"
        The part shown by the waterfall.
    sort_by : {"total", "positive", "negative", "net"}, default="total"
        Bar plot order (by magnitude for net and for Shapley values).
    max_display : int, default=20
        Players shown; the others are summed into one bar.
    quantity : {"beta", "shapley"}, default="beta"
        What the values are: bias explanations or Shapley-bias values (the axis label).
    groups : tuple of two labels, default=None
        The groups compared: the positive part favours the first, the negative part the
        second (``(explainer.privileged_group_, explainer.protected_group_)``). When given, the
        legend names the group each part favours.

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure
    bars_ : list of matplotlib BarContainer
    names_ : list of str
        The players shown, top to bottom.

    See Also
    --------
    skfair.explain.BiasExplainer : Computes the bias explanations shown.
    skfair.explain.explain_bias : The explanations as a function.

    References
    ----------
    Miroshnikov, A., Kotsiopoulos, K., Franks, R. and Ravi Kannan, A. (2022). Wasserstein-based
    fairness interpretability framework for machine learning models. Machine Learning 111,
    3307-3357. arXiv:2011.03156.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skfair.datasets import make_bias_example
    >>> from skfair.plotting import BiasExplanationDisplay
    >>> credit = make_bias_example("M3", n_samples=200, random_state=0)
    >>> model = LogisticRegression().fit(credit.data, credit.target)
    >>> display = BiasExplanationDisplay.from_estimator(
    ...     model, credit.data, sensitive_features=credit.sensitive, kind="waterfall",
    ...     favorable="lower", random_state=0)
    """

    def __init__(
        self,
        *,
        names,
        values,
        bias,
        kind="bar",
        part="total",
        sort_by="total",
        max_display=20,
        quantity="beta",
        groups=None,
    ):
        keep_arguments(self, locals())

    def plot(self, ax=None):
        """Draw the plot.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure is made when None.

        {returns_self}
        """
        check_matplotlib_support(f"{type(self).__name__}.plot")
        if self.kind not in ("bar", "waterfall"):
            raise ValueError(f"kind must be 'bar' or 'waterfall', got {self.kind!r}.")
        # Feature names label the y axis: a constrained layout makes room for long ones
        # instead of cutting them at the figure's edge.
        ax = axes(self, ax, layout="constrained")
        names = np.asarray(self.names, dtype=object)
        values = {part: np.asarray(self.values[part], dtype=float) for part in _PARTS}
        if self.kind == "bar":
            self._plot_bars(ax, names, values)
        else:
            self._plot_waterfall(ax, names, values[self.part])
        return drawn(self, ax)

    def _shown(self, key):
        """Order players by ``key`` (largest first); the tail beyond max_display is merged."""
        order = np.argsort(-key, kind="stable")
        shown = order[: self.max_display]
        rest = order[self.max_display :]
        return shown, rest

    def _plot_bars(self, ax, names, values):
        key = values[self.sort_by]
        if self.sort_by == "net" or self.quantity == "shapley":
            key = np.abs(key)
        shown, rest = self._shown(key)
        labels = list(names[shown]) + ([f"{len(rest)} other"] if len(rest) else [])
        rows = np.arange(len(labels))[::-1]  # largest on top
        height = 0.8 / len(_PARTS)
        self.bars_ = []
        for k, part in enumerate(_PARTS):
            heights = (
                np.append(values[part][shown], values[part][rest].sum())
                if len(rest)
                else values[part][shown]
            )
            self.bars_.append(
                ax.barh(
                    rows + (1.5 - k) * height,
                    heights,
                    height=height,
                    color=_COLORS[part],
                    label=self._legend_label(part),
                )
            )
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.set_yticks(rows, labels)
        quantity = "Shapley-bias value" if self.quantity == "shapley" else "bias explanation"
        ax.set_xlabel(quantity)
        ax.legend(loc="lower right")
        self.names_ = labels

    def _legend_label(self, part):
        """The part's name, with the group it favours when the groups are known."""
        if self.groups is None or part == "total":
            return part
        favoured, other = (group_text(group) for group in self.groups)
        if part == "positive":
            return f"positive (favours {favoured})"
        if part == "negative":
            return f"negative (favours {other})"
        return f"net (> 0: favours {favoured})"

    def _plot_waterfall(self, ax, names, values):
        shown, rest = self._shown(np.abs(values))
        labels = list(names[shown]) + ([f"{len(rest)} other"] if len(rest) else [])
        steps = np.append(values[shown], values[rest].sum()) if len(rest) else values[shown]
        starts = np.concatenate([[0.0], np.cumsum(steps)[:-1]])
        rows = np.arange(len(labels))[::-1]
        colors = np.where(steps >= 0, _COLORS["positive"], _COLORS["negative"])
        self.bars_ = [ax.barh(rows, steps, left=starts, color=colors)]
        end = float(self.bias[self.part])
        ax.axvline(
            end,
            color="black",
            linestyle="--",
            linewidth=0.8,
            label=f"model bias ({self.part}) = {end:.4g}",
        )
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.set_yticks(rows, labels)
        ax.set_xlabel(f"cumulative Shapley-bias value ({self.part})")
        ax.legend(loc="lower right")
        self.names_ = labels

    @classmethod
    def from_explainer(
        cls,
        explainer,
        *,
        kind="bar",
        quantity="beta",
        part="total",
        sort_by="total",
        max_display=20,
        ax=None,
    ):
        """Plot the explanations of a fitted :class:`~skfair.explain.BiasExplainer`.

        Parameters
        ----------
        explainer : BiasExplainer
            A fitted explainer.
        {explanation_options}

        {returns_display}
        """
        explanations = explainer.explanations_
        has_shapley = "shapley_total" in explanations
        if kind == "waterfall" or quantity == "shapley":
            if not has_shapley:
                raise ValueError(
                    f"method={explainer.method!r} computes no Shapley-bias values, which the "
                    "waterfall (and quantity='shapley') shows; use method='shapley' or "
                    "'marginal', or kind='bar' with quantity='beta'."
                )
            prefix = "shapley_"
        elif quantity == "beta":
            prefix = ""
        else:
            raise ValueError(f"quantity must be 'beta' or 'shapley', got {quantity!r}.")
        if part not in _PARTS or sort_by not in _PARTS:
            raise ValueError(f"part and sort_by must be among {_PARTS}.")
        display = cls(
            names=explanations.names,
            values={p: explanations[prefix + p] for p in _PARTS},
            bias=explainer.bias_,
            kind=kind,
            part=part,
            sort_by=sort_by,
            max_display=max_display,
            quantity="shapley" if prefix else "beta",
            groups=(explainer.privileged_group_, explainer.protected_group_),
        )
        return display.plot(ax=ax)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        *,
        sensitive_features=None,
        kind="bar",
        quantity="beta",
        part="total",
        sort_by="total",
        max_display=20,
        ax=None,
        **explainer_params,
    ):
        """Fit a :class:`~skfair.explain.BiasExplainer` on a fitted model and plot it.

        Parameters
        ----------
        estimator : estimator object
            A fitted model.
        X : array-like or DataFrame
            Rows to explain.
        sensitive_features : array-like of shape (n_samples,), default=None
            Group of each row (two groups), when the explainer's ``sensitive_column`` is
            not set.
        {explanation_options}
        **explainer_params : dict
            Parameters of :class:`~skfair.explain.BiasExplainer`.

        {returns_display}
        """
        from skfair.explain import BiasExplainer

        explainer = BiasExplainer(estimator, **explainer_params).fit(
            X, sensitive_features=sensitive_features
        )
        return cls.from_explainer(
            explainer,
            kind=kind,
            quantity=quantity,
            part=part,
            sort_by=sort_by,
            max_display=max_display,
            ax=ax,
        )
