"""Wasserstein-barycenter repair of scores and regression outputs (the maps: skfair._transport)."""

from __future__ import annotations

from numbers import Real

from skfair._transport._barycenter import BarycenterMaps
from skfair._transport._repair import _BaseRepair
from skfair._utils._compat import Interval, StrOptions
from skfair.postprocessing._docs import documented


@documented
class BarycenterRepair(BarycenterMaps):
    """Repair scores towards the Wasserstein barycenter of the groups.

    Each column of ``X`` (a score, a probability or a regression output) is mapped, within the
    sample's group ``a``, to ``fair(y) = Σ_b p_b Q_b(F_a(y))``: the optimal transport map from
    the group's output law to the W2 barycenter of all groups' laws. That is the predictor
    closest in squared loss to the original among those satisfying strong demographic parity
    (Chzhen et al. 2020; Le Gouic et al. 2020). ``epsilon`` keeps a share of the original
    (partial repair, along the W2 geodesic or by random repair).

    Parameters
    ----------
    epsilon : float or array-like of float in [0, 1], default=0.0
        Share of the original output kept: 0 is the full repair, 1 the identity. The geometric
        repair amount of Feldman et al. 2015 is ``λ = 1 - epsilon``. In geometric mode the
        barycentric dispersion scales as ``epsilon²`` and the squared cost as
        ``(1 - epsilon)²``, so the α-relative improvement of Chzhen & Schreuder (2022) is
        reached at ``epsilon = sqrt(α)``. A sequence gives one value per sensitive attribute,
        in the column order of ``sensitive_features`` (the chain order).
    mode : {"geometric", "random"}, default="geometric"
        ``"geometric"``: ``(1 - epsilon) * fair + epsilon * y`` (McCann interpolation).
        ``"random"``: each row is fully repaired with probability ``1 - epsilon`` and left
        unchanged otherwise (Gordaliza et al. 2019); KS gaps then scale as ``epsilon``.
    ties : {"randomized", "none", "jitter"}, default="randomized"
        ``"randomized"``: a query equal to a calibration value of its group gets a uniform
        level inside that value's step (randomised probability integral transform), and
        ``fit_transform`` ranks tied rows in random order. No scale parameter; strict order is
        kept. ``"none"``: plain ECDF, tied rows share one output. ``"jitter"``: uniform noise
        of half-width ``jitter`` on the calibration (once, at fit) and on the queries (each
        call), as in Chzhen et al. 2020 and equipy; meant for reproducing their numbers.
    jitter : float, default=1e-4
        Absolute half-width of the noise for ``ties="jitter"``; ignored otherwise.
    {handle_unknown_repair}
    random_state : int, RandomState instance, Generator or None, default=None
        Seeds the tie-breaking, the random repair and the jitter. One seed is drawn from it at
        fit, and every random number is a function of that seed and the row's position, so
        repeated ``transform`` calls give identical output for any ``random_state`` (None
        included).
    {sensitive_column_read}

    Attributes
    ----------
    {score_repair_attributes}
    w2_dispersion_ : ndarray of shape (n_features,)
        Barycentric dispersion ``U_W2 = Σ_a p_a W2²(ν_a, ν̄)`` of each column over the groups:
        the mean squared change of the full repair, the price of fairness of Le Gouic et al.
        In geometric mode the cost at ``epsilon`` is about ``(1 - epsilon)² * w2_dispersion_``.
    sequential_ : bool
        Whether the conditional chain over attributes is used (several attributes and some
        ``epsilon > 0``); otherwise the groups are the joint cells, repaired in one pass.

    See Also
    --------
    RepairedClassifier, RepairedRegressor : Wrap a model and repair its outputs.

    Notes
    -----
    **Several attributes.** With every ``epsilon`` 0 the groups are the joint cells (the
    intersectional barycenter). Otherwise the attributes are repaired one after the other
    (Hu, Ratz & Charpentier 2024): attribute j within the strata of the attributes after it,
    each step fitted on the partially repaired outputs of the step before. Only the attribute
    repaired last is marginally exact: put the attribute that must be exactly fair last.

    **In-sample vs out-of-sample.** ``fit_transform`` repairs the calibration rows by their
    ranks: the pairwise Kolmogorov-Smirnov distance between repaired groups is below
    ``1 / min(n_a, n_b)``, also for discrete scores. ``fit(X).transform(X)`` instead draws a
    level inside each row's step, like for new data, and differs from ``fit_transform`` on
    purpose (as for scikit-learn's ``TargetEncoder``).

    **Batch independence.** The output of a row depends only on the row, its position in the
    data and the fitted state: the random numbers of a row (a value equal to a calibration
    value of its group, random mode, jitter) are keyed on the fitted seed and the row's
    position, not drawn in batch order.

    Outputs stay within the range of the calibration values; probabilities stay in [0, 1]
    without clipping.

    **Dask input.** ``fit`` reads the calibration rows as the frequency table of their
    distinct (sensitive values, outputs) rows, summed over the partitions: the maps depend on
    the data through the groups' weighted ECDFs, so the fit is exactly the in-memory one. The
    table has one row per distinct output of each group: round continuous outputs first (e.g.
    ``S.round(4)``, at most 10,001 rows per group on [0, 1]); a table past 2**21 rows is
    refused with a ValueError before it reaches the client. ``transform`` returns a lazy dask
    array, block by block at each block's row offset, exactly the in-memory output.
    ``fit_transform`` (ranks of all rows), ``ties="jitter"`` and a sequential repair (several
    attributes with ``epsilon > 0``) refuse dask input with a TypeError.

    References
    ----------
    E. Chzhen, C. Denis, M. Hebiri, L. Oneto, M. Pontil, "Fair regression with Wasserstein
    barycenters", NeurIPS 2020. T. Le Gouic, J.-M. Loubes, P. Rigollet, "Projection to
    fairness in statistical learning", 2020. F. Hu, P. Ratz, A. Charpentier, "A sequentially
    fair mechanism for multiple sensitive attributes", AAAI 2024.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.postprocessing import BarycenterRepair
    >>> scores = np.r_[np.linspace(0.0, 0.45, 10), np.linspace(0.5, 0.95, 10)][:, None]
    >>> group = np.repeat([0, 1], 10)
    >>> repaired = BarycenterRepair().fit_transform(scores, sensitive_features=group)
    >>> repaired[:3, 0], repaired[10:13, 0]
    (array([0.25, 0.3 , 0.35]), array([0.25, 0.3 , 0.35]))
    """

    # The center of the group laws: "mean" (the W2 barycenter) or "median" (the median of the
    # group quantile functions, Feldman et al. 2015; skfair.preprocessing.FeatureRepair).
    _center = "mean"

    _parameter_constraints: dict = {
        **_BaseRepair._parameter_constraints,
        "epsilon": [Interval(Real, 0, 1, closed="both"), "array-like"],
        "mode": [StrOptions({"geometric", "random"})],
        "ties": [StrOptions({"randomized", "none", "jitter"})],
        "jitter": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        epsilon=0.0,
        *,
        mode="geometric",
        ties="randomized",
        jitter=1e-4,
        handle_unknown="error",
        random_state=None,
        sensitive_column=None,
    ):
        self.epsilon = epsilon
        self.mode = mode
        self.ties = ties
        self.jitter = jitter
        self.handle_unknown = handle_unknown
        self.random_state = random_state
        self.sensitive_column = sensitive_column
