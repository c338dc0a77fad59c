"""Docstring parts that the pre-processing transformers share.

A line ``{name}`` in a docstring of a class decorated with ``documented`` stands for
``PARTS[name]`` (numpydoc text as rendered, without the docstring's indentation).
"""

from __future__ import annotations

from skfair._utils._docstrings import PARTS as SHARED_PARTS
from skfair._utils._docstrings import with_parts

PARTS = {
    **SHARED_PARTS,
    "sensitive_column_removed": """\
sensitive_column : str, int or list, default=None
    Column(s) of ``X`` holding the sensitive attribute(s) instead of passing
    ``sensitive_features=``; they are removed from the output.""",
    "fit_y_sensitive_features": """\
y : None
    Ignored.
sensitive_features : array-like of shape (n_samples,) or (n_samples, n_attributes), \
dict or DataFrame, default=None
    Sensitive attribute(s). None (and no ``sensitive_column``) means one group: the
    transform is the identity.""",
    "repair_columns_in": """\
n_features_in_ : int
    Number of columns of ``X``, the sensitive column(s) included.
feature_names_in_ : ndarray of str
    Column names of ``X``, when it has string column names.""",
}


documented = with_parts(PARTS)
