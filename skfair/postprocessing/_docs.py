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
    "parameters_X_groups": """\
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Samples.
sensitive_features : array-like, dict or DataFrame, default=None
    Sensitive attribute(s), when ``sensitive_column`` is not set.""",
}


documented = with_parts(PARTS)
