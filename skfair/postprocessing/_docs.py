"""Docstring parts that the post-processing estimators' methods share.

A line ``{name}`` in a docstring of a class decorated with ``documented`` stands for
``PARTS[name]`` (numpydoc text as rendered, without the docstring's indentation).
"""

from __future__ import annotations

from skfair._utils._docstrings import with_parts

PARTS = {
    "parameters_X_groups": """\
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Samples.
sensitive_features : array-like, dict or DataFrame, default=None
    Sensitive attribute(s), when ``sensitive_column`` is not set.""",
}


documented = with_parts(PARTS)
