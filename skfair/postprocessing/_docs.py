"""Docstring parts that the post-processing estimators' methods share.

A line ``{name}`` in a docstring of a class decorated with ``documented`` stands for
``PARTS[name]`` (numpydoc text as rendered, without the docstring's indentation).
"""

from __future__ import annotations

from skfair._utils._docstrings import PARTS as SHARED_PARTS
from skfair._utils._docstrings import with_parts

PARTS = {
    **SHARED_PARTS,
    "references_barycenter": """\
References
----------
Chzhen, E., Denis, C., Hebiri, M., Oneto, L. and Pontil, M. (2020). Fair regression with
Wasserstein barycenters. Advances in Neural Information Processing Systems 33.

Le Gouic, T., Loubes, J.-M. and Rigollet, P. (2020). Projection to fairness in statistical
learning. arXiv:2005.11720.""",
    "sensitive_column_rule": """\
sensitive_column : str, int or list of them, default=None
    Column(s) of X holding the sensitive features, removed before the model sees X
    (unless ``drop_sensitive=False``). This mode works inside ``GridSearchCV`` and with
    scikit-learn's scorers, which cannot pass metadata to ``predict``.
drop_sensitive : bool, default=True
    Whether to remove ``sensitive_column`` from X before the model.""",
    # The score repairs (BarycenterRepair, MADDRepair): parameters and fitted attributes that
    # come from their shared plumbing (skfair._transport._repair).
    "handle_unknown_repair": """\
handle_unknown : {"error", "identity"}, default="error"
    A group (or a combination of attribute values) not seen at fit raises a ValueError
    naming it, or with ``"identity"`` its rows are returned unchanged with a warning.""",
    "sensitive_column_read": """\
sensitive_column : str, int or list, default=None
    Column(s) of ``X`` holding the sensitive attribute(s) instead of passing
    ``sensitive_features=``: they are read and removed, so the output (and
    ``get_feature_names_out``) has the other columns only. Giving both raises.""",
    "score_repair_attributes": """\
n_features_in_ : int
    Number of columns of ``X``.
feature_names_in_ : ndarray of str
    Column names of ``X``, when it has string column names.
groups_ : list
    Label of each group: a value for one attribute, a tuple of values for several;
    ``[None]`` when fitted without sensitive features.
categories_ : list of ndarray
    Sorted values of each sensitive attribute (empty without sensitive features).
n_groups_ : int
    Number of groups (observed combinations of attribute values); 1 when fitted without
    sensitive features.
group_counts_ : ndarray of shape (n_groups,)
    Calibration rows per group.
sensitive_feature_names_in_ : ndarray of str
    Names of the sensitive attributes seen at fit, when they had names (DataFrame
    columns, dict keys, a named Series); ``transform`` matches attributes by these names.""",
    "parameters_X_groups": """\
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Samples.
sensitive_features : array-like, dict or DataFrame, default=None
    Sensitive attribute(s), when ``sensitive_column`` is not set.""",
}


documented = with_parts(PARTS)
