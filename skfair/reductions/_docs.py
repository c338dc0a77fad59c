"""Docstring parts that the reductions share.

A line ``{name}`` in a docstring of a class decorated with ``documented`` stands for
``PARTS[name]`` (numpydoc text as rendered, without the docstring's indentation).
"""

from __future__ import annotations

from skfair._utils._docstrings import PARTS as SHARED_PARTS
from skfair._utils._docstrings import with_parts

PARTS = {
    **SHARED_PARTS,
    # How every reduction compares the groups' rates (or losses).
    "compared_groups": """\
disparity : {"difference", "ratio"}, default="difference"
    How rates are compared (two classes only).
privileged_group : label, tuple or list of them, default=None
    None compares every pair of groups. Otherwise the disadvantaged samples (pooled, or
    each other group, see ``disadvantaged``) are compared with the privileged group(s),
    both ways, as the signed metrics of :mod:`skfair.metrics` compare them.
disadvantaged : {"pooled", "each"}, default="pooled"
    With ``privileged_group``: the other groups pooled, or each on its own.
pos_label : int, float, bool or str, default=None
    The positive class of the rates (default: the greater class label).
loss : {"squared_error", "absolute_error"}, default="squared_error"
    The loss of bounded group loss and of the regression objective.""",
    # Where each fit decides (see ExponentiatedGradient's Notes on the threshold).
    "response_threshold": """\
response_threshold : {"auto", "least_cost", "own"}, default="auto"
    Where a two-class fit with ``predict_proba`` (or ``decision_function``) decides:
    ``"least_cost"``, at the threshold of its score where the Lagrangian's cost on the
    training rows is least (see :class:`ExponentiatedGradient`'s Notes); ``"own"``, at its
    own (fairlearn's choice); ``"auto"``, the least costly threshold for a scikit-learn
    linear classifier (``LogisticRegression``, ``SGDClassifier``, ``LinearSVC``, ...; also
    as a pipeline's last step), whose training scores carry over to new rows, and its own
    for any other learner (boosting, trees, neighbours), whose training scores are fitted to
    the training rows so that a threshold chosen on them does not carry over as well. Pass
    ``"least_cost"`` for a linear model from another library.""",
    # ``fit`` of every reduction: the data, and what it returns.
    "parameters_fit": SHARED_PARTS["parameters_X_fit"]
    + """
y : array-like of shape (n_samples,)
    Class labels, or targets for bounded group loss.
sample_weight : array-like of shape (n_samples,), default=None
    Weights of the rates, of the objective and (multiplied in) of every fit.
sensitive_features : array-like, dict or DataFrame, default=None
    Sensitive attribute(s) when ``sensitive_column`` is not set; several attributes
    give intersectional groups. None means one group: no constraint, the unconstrained
    fit is the answer.
**fit_params : dict
    Other metadata for the base learner's ``fit`` (routed with metadata routing).

Returns
-------
self : object
    Fitted estimator.""",
}


documented = with_parts(PARTS)
