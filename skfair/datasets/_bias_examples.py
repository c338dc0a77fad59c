"""The synthetic models of Miroshnikov et al. (arXiv:2011.03156), Sections 3-4."""

from __future__ import annotations

import numpy as np
from sklearn.utils import Bunch

from skfair._utils._compat import (
    RANDOM_STATE_CONSTRAINT,
    Interval,
    Real,
    StrOptions,
    validate_params,
)
from skfair._utils._random import check_random_state

# M6 coefficients a = (10, -4, 16, 1, -3) / 20 (paper Sect. 4.4).
_M6_SHIFT = np.array([10.0, -4.0, 16.0, 1.0, -3.0]) / 20.0
# The paper's N(m, s) does not say whether s is a standard deviation or a variance: the std
# reproduces M1's reported P(Y=0 | G=1) = 0.36 (the variance gives 0.329), the variance
# reproduces M6's reported coefficients (beta_1 0.088 against the paper's 0.0860; the std
# gives 0.131). Nothing decides M2-M5; they follow M1.
_DEFAULT_SCALE = {
    "M1": "std",
    "M2": "std",
    "M3": "std",
    "M4": "std",
    "M5": "std",
    "M6": "var",
    "4.6": "std",
}


class LinearScore:
    """The true score ``f(x) = link(intercept + x @ coef)`` of a simulation (picklable).

    ``link`` is ``"logistic"`` (probability of the unfavourable outcome Y=1) or
    ``"identity"``.
    """

    def __init__(self, coef, intercept, link):
        self.coef = np.asarray(coef, dtype=float)
        self.intercept = float(intercept)
        self.link = link

    def __call__(self, X):
        z = self.intercept + np.asarray(X, dtype=float) @ self.coef
        return 1.0 / (1.0 + np.exp(-z)) if self.link == "logistic" else z


@validate_params(
    {
        "name": [StrOptions(set(_DEFAULT_SCALE))],
        "n_samples": [Interval(Real, 1, None, closed="left")],
        "random_state": RANDOM_STATE_CONSTRAINT,
        "normal_scale": [StrOptions({"std", "var"}), None],
        "mu": [Real],
        "tau": [Real],
        "sigma": [Interval(Real, 0, None, closed="neither")],
        "as_frame": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def make_bias_example(
    name="M6",
    n_samples=20000,
    *,
    random_state=None,
    normal_scale=None,
    mu=5.0,
    tau=0.7,
    sigma=1.0,
    as_frame=False,
):
    """Generate one of the paper's synthetic credit models, M1-M6, or example (4.6).

    The group G is Bernoulli(1/2) and G=0 is the privileged (non-protected) class. In M1-M6,
    Y=1 means default and ``f = P(Y=1 | X)``, so lower scores are favourable. Distributions
    ``N(m, s)`` (second argument std or variance, see ``normal_scale``):

    - ``"M1"``: ``X ~ N(mu - G, sqrt(mu))``, ``f = sigmoid(mu - X)``.
    - ``"M2"``: ``X ~ N(mu, (1 + G) sqrt(mu))``, same f.
    - ``"M3"``: ``X1 ~ N(mu + G, 1)``, ``X2 ~ N(mu - G, 1)``, ``f = sigmoid(2 mu - X1 - X2)``.
    - ``"M4"``: ``X_i ~ N(mu, 1 + G)``, same f as M3.
    - ``"M5"``: ``X1 ~ N(mu, 2 - G)``, ``X2 ~ N(mu, 1 + G)``, same f as M3.
    - ``"M6"``: ``X_i ~ N(mu - a_i (1 - G), s_i)``, ``a = (10, -4, 16, 1, -3) / 20``,
      ``s = (0.5 + G, 1, 1, 1 - 0.5 G, 1 - 0.75 G)``, ``f = sigmoid(sum X - 24.5)``.
    - ``"4.6"``: ``X1 ~ N(mu + tau G, sigma)``, ``X2 ~ N(mu - tau G, sigma)``, and the target
      is ``f = X1 + X2`` itself (a regression example with no model bias but offsetting
      feature biases).

    Parameters
    ----------
    name : {"M1", "M2", "M3", "M4", "M5", "M6", "4.6"}, default="M6"
        The model.
    n_samples : int, default=20000
        Number of rows.
    random_state : int, RandomState instance, Generator or None, default=None
        Seed of the draw.
    normal_scale : {"std", "var"}, default=None
        Whether the second argument of N(m, s) is the standard deviation or the variance.
        None picks the convention that reproduces the paper: the variance for M6, the std
        otherwise (the paper does not say which; see Notes).
    mu : float, default=5.0
        The location mu.
    tau, sigma : float, default=0.7, 1.0
        Shift and scale of example (4.6).
    as_frame : bool, default=False
        Return ``data`` as a pandas DataFrame and ``target``, ``sensitive`` as Series.

    Returns
    -------
    Bunch
        ``data`` (n_samples, n_features), ``target`` (Y), ``sensitive`` (G), ``score`` (the
        true f(X)), ``score_function`` (picklable callable f), ``favorable`` ("lower"),
        ``privileged_group`` (0), ``feature_names`` and ``DESCR``.

    See Also
    --------
    make_madd_simulation : The simulated scores of the MADD paper.
    skfair.explain.BiasExplainer : Explains the bias of a model on these data.

    Notes
    -----
    The paper writes N(m, s) without saying whether s is a standard deviation or a variance.
    With the standard deviation, M1 gives the reported P(Y=0 | G=1) = 0.36 (0.362; the
    variance gives 0.329); with the variance, M6 gives the reported coefficients (beta_1 =
    0.088 against 0.0860; the standard deviation gives 0.131). Nothing in the text decides
    M2-M5, which follow M1. ``normal_scale`` forces either convention.

    References
    ----------
    .. [1] A. Miroshnikov, K. Kotsiopoulos, R. Franks and A. Ravi Kannan, "Wasserstein-based
       fairness interpretability framework for machine learning models", Machine Learning,
       2022 (arXiv:2011.03156), Sections 3-4.

    Examples
    --------
    >>> from skfair.datasets import make_bias_example
    >>> data = make_bias_example("M3", 1000, random_state=0)
    >>> data.data.shape, data.favorable
    ((1000, 2), 'lower')
    """
    n_samples = int(n_samples)
    rng = check_random_state(random_state)
    scale = normal_scale or _DEFAULT_SCALE[name]
    group = rng.binomial(1, 0.5, n_samples)

    def normal(mean, s):
        std = s if scale == "std" else np.sqrt(s)
        return mean + std * rng.standard_normal(n_samples)

    root_mu = np.sqrt(mu)
    if name == "M1":
        X = normal(mu - group, root_mu)[:, None]
        score_function = LinearScore([-1.0], mu, "logistic")
    elif name == "M2":
        X = normal(mu, (1 + group) * root_mu)[:, None]
        score_function = LinearScore([-1.0], mu, "logistic")
    elif name in ("M3", "M4", "M5"):
        first, second = {
            "M3": ((mu + group, 1.0), (mu - group, 1.0)),
            "M4": ((mu, 1.0 + group), (mu, 1.0 + group)),
            "M5": ((mu, 2.0 - group), (mu, 1.0 + group)),
        }[name]
        X = np.column_stack([normal(*first), normal(*second)])
        score_function = LinearScore([-1.0, -1.0], 2 * mu, "logistic")
    elif name == "M6":
        scales = [0.5 + group, 1.0, 1.0, 1.0 - 0.5 * group, 1.0 - 0.75 * group]
        X = np.column_stack(
            [normal(mu - a * (1 - group), s) for a, s in zip(_M6_SHIFT, scales, strict=True)]
        )
        score_function = LinearScore(np.ones(5), -24.5, "logistic")
    else:
        X = np.column_stack([normal(mu + tau * group, sigma), normal(mu - tau * group, sigma)])
        score_function = LinearScore([1.0, 1.0], 0.0, "identity")

    score = score_function(X)
    target = score if name == "4.6" else rng.binomial(1, score)
    feature_names = [f"X{i + 1}" for i in range(X.shape[1])]
    if as_frame:
        import pandas as pd

        X = pd.DataFrame(X, columns=feature_names)
        target = pd.Series(target, name="Y")
        group = pd.Series(group, name="G")
    return Bunch(
        data=X,
        target=target,
        sensitive=group,
        score=score,
        score_function=score_function,
        favorable="lower",
        privileged_group=0,
        feature_names=feature_names,
        DESCR=(
            f"Model {name} of Miroshnikov, Kotsiopoulos, Franks and Ravi Kannan, "
            "'Wasserstein-based fairness interpretability framework for machine learning "
            f"models', Machine Learning (2022), arXiv:2011.03156. N(m, s) read with s the "
            f"{'standard deviation' if scale == 'std' else 'variance'}."
        ),
    )
