"""Docstrings assembled from shared parts: a line ``{name argument ...}`` stands for a part.

A subpackage keeps the parts its public docstrings share (a parameter described alike in
several functions, a reference) in one place and writes ``{name}`` where one goes; the
rendered docstring, in ``help()``, the API reference and numpydoc's validation, is the
complete text. Parts that several subpackages share (the meta-estimators' ``X`` at fit and
their input-column attributes) are :data:`PARTS` here.
"""

from __future__ import annotations

import re

# Parts that docstrings of several subpackages share (numpydoc text as rendered, without the
# docstring's indentation); a subpackage's own parts add to them.
PARTS = {
    "parameters_X_fit": """\
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Training data; with ``sensitive_column`` it holds the sensitive column(s) too.""",
    "columns_in": """\
n_features_in_ : int
    Number of columns of X, the sensitive column(s) included.
feature_names_in_ : ndarray of str
    Column names of X, when it has string column names.""",
}

_PLACEHOLDER = re.compile(r"^( *)\{(\w+)((?: \w+)*)\}$", re.MULTILINE)


def fill_parts(doc, part):
    """``doc`` with each line ``{name argument ...}`` replaced by ``part(name, arguments)``
    (text of one or more lines), indented as the line was."""

    def replace(match):
        text = part(match.group(2), match.group(3).split())
        return "\n".join(match.group(1) + line if line else "" for line in text.split("\n"))

    return _PLACEHOLDER.sub(replace, doc)


def fill_class(cls, part):
    """Class decorator body: :func:`fill_parts` on the docstrings of ``cls`` and of the
    functions it defines (methods, classmethods)."""
    cls.__doc__ = fill_parts(cls.__doc__, part)
    for member in vars(cls).values():
        # the function behind a classmethod, or behind scikit-learn's ``available_if``
        function = getattr(member, "__func__", getattr(member, "fn", member))
        if callable(function) and function.__doc__:
            function.__doc__ = fill_parts(function.__doc__, part)
    return cls


def with_parts(parts):
    """Decorator of a function, or of a class and its methods: fill the lines ``{name}`` of
    their docstrings with ``parts[name]``."""

    def part(name, arguments):
        return parts[name]

    def decorate(documented):
        if isinstance(documented, type):
            return fill_class(documented, part)
        documented.__doc__ = fill_parts(documented.__doc__, part)
        return documented

    return decorate
