"""Docstring parts that the data set loaders share.

A line ``{name}`` in a loader's docstring decorated with ``documented`` stands for
``PARTS[name]``; ``{see_also_loaders name}`` for a See Also section naming the other loaders.
"""

from __future__ import annotations

from skfair._utils._docstrings import fill_parts

LOADERS = {
    "load_adult": "Census income, with sex and race.",
    "load_bank_marketing": "Bank telemarketing outcomes, with age group and marital status.",
    "load_german_credit": "Credit risk, with sex, age group and foreign-worker status.",
}

PARTS = {
    "as_frame": """\
as_frame : bool, default=False
    If True, ``data`` and ``sensitive_features`` are pandas DataFrames (categorical columns
    as ``category`` dtype), ``target`` a Series, and ``frame`` holds data and target. Needs
    pandas.""",
    "bunch_columns": """\
feature_names, categorical_features, sensitive_feature_names : ndarray of str
    Column names of ``data``, its categorical columns, and of ``sensitive_features``.""",
    "bunch_frame": """\
frame : DataFrame
    Only when ``as_frame=True``: ``data`` with the target as last column.
DESCR : str
    Description, caveats and citation.""",
}


def _part(name, arguments):
    if name == "see_also_loaders":
        return "See Also\n--------\n" + "\n".join(
            f"{loader} : {summary}" for loader, summary in LOADERS.items() if loader != arguments[0]
        )
    return PARTS[name]


def documented(loader):
    """Fill the lines ``{name ...}`` of ``loader``'s docstring."""
    loader.__doc__ = fill_parts(loader.__doc__, _part)
    return loader
