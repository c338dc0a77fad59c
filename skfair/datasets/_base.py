"""Reading the bundled csv.gz files and assembling the loaders' ``Bunch``.

The files ship inside the package (``skfair/datasets/data/``) and are read through
:mod:`importlib.resources`, so the loaders work from a wheel, a zip import or a source tree and
never touch the network. Parsing uses the :mod:`csv` module and numpy only: pandas is an optional
extra, needed for ``as_frame=True`` alone.
"""

from __future__ import annotations

import functools
import gzip
from importlib import resources

import numpy as np
from sklearn.utils import Bunch

from skfair.datasets._csv import read_csv_table

DATA_MODULE = "skfair.datasets"
DATA_FOLDER = "data"

ATTRIBUTION = """\
License and attribution
-----------------------
The data come from the UCI Machine Learning Repository and are licensed under Creative Commons
Attribution 4.0 International (CC BY 4.0, https://creativecommons.org/licenses/by/4.0/). The
file ``skfair/datasets/data/ATTRIBUTION.md`` lists the sources and the changes made to the
files."""


def read_csv_columns(filename):
    """Read a bundled ``.csv.gz`` file into ``(names, columns)`` (see :mod:`skfair.datasets._csv`).

    The file is parsed once per process (the bundled files do not change); every call returns
    its own copy of the columns, which the caller may modify.

    Parameters
    ----------
    filename : str
        File name inside ``skfair/datasets/data/``.
    """
    names, columns = _parsed_columns(filename)
    return list(names), {name: values.copy() for name, values in columns.items()}


@functools.cache
def _parsed_columns(filename):
    resource = resources.files(DATA_MODULE).joinpath(DATA_FOLDER, filename)
    with resource.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8", newline="") as text:
        table = read_csv_table(text, source=filename)
    return table.names, table.columns


def decode(values, codebook, *, name):
    """Map the codes in ``values`` to the labels in ``codebook``; unknown codes raise."""
    codes = np.array(list(codebook), dtype=object)
    labels = np.array(list(codebook.values()), dtype=object)
    order = np.argsort(codes)
    positions = np.minimum(np.searchsorted(codes[order], values), len(codes) - 1)
    found = codes[order][positions] == values
    if not found.all():
        unknown = sorted(set(values[~found].tolist()))
        raise ValueError(f"Column {name!r} holds codes {unknown} that the codebook lacks.")
    return labels[order][positions]


def make_bunch(
    *,
    features,
    target,
    target_name,
    target_names,
    sensitive,
    descr,
    as_frame,
    categories=None,
):
    """Assemble the ``Bunch`` every loader returns.

    Parameters
    ----------
    features : dict of str to ndarray
        Feature columns in order: int64 arrays for numeric columns, object arrays for
        categorical ones (missing values as ``np.nan``).
    target : ndarray of int
        0/1 labels.
    target_name : str
        Name of the target column (the ``frame``'s last column).
    target_names : list of str
        ``target_names[k]`` is the original label of class ``k``.
    sensitive : dict of str to ndarray
        Sensitive attributes, each an object array of group labels.
    descr : str
        The data set's description.
    as_frame : bool
        Return pandas objects (needs pandas) instead of numpy arrays.
    categories : dict of str to list, default=None
        Category order of some categorical columns for ``as_frame=True``; sorted otherwise.
    """
    categories = categories or {}
    feature_names = list(features)
    categorical = [name for name, values in features.items() if values.dtype == object]
    sensitive_names = list(sensitive)
    bunch = Bunch(
        feature_names=np.array(feature_names, dtype=object),
        categorical_features=np.array(categorical, dtype=object),
        target_names=np.array(target_names, dtype=object),
        sensitive_feature_names=np.array(sensitive_names, dtype=object),
        DESCR=descr,
    )
    if not as_frame:
        bunch.data = _stack(features)
        bunch.target = target
        bunch.sensitive_features = _stack(sensitive)
        return bunch
    pd = _import_pandas()
    data = pd.DataFrame(
        {name: _as_series(pd, name, values, categories) for name, values in features.items()}
    )
    bunch.data = data
    bunch.target = pd.Series(target, name=target_name)
    bunch.sensitive_features = pd.DataFrame(
        {name: _as_series(pd, name, values, categories) for name, values in sensitive.items()}
    )
    bunch.frame = pd.concat([data, bunch.target], axis=1)
    return bunch


def _stack(columns):
    """Columns side by side in one object array (int64 when every column is numeric)."""
    arrays = list(columns.values())
    dtype = object if any(values.dtype == object for values in arrays) else np.int64
    stacked = np.empty((arrays[0].shape[0], len(arrays)), dtype=dtype)
    for j, values in enumerate(arrays):
        # Assigning an int64 array into an object array stores Python ints, which
        # scikit-learn's check_array turns back into floats without complaint.
        stacked[:, j] = values
    return stacked


def _as_series(pd, name, values, categories):
    if values.dtype != object:
        return pd.Series(values, name=name)
    return pd.Series(pd.Categorical(values, categories=categories.get(name)), name=name)


def _import_pandas():
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas is installed in the test env
        from skfair._utils._compat import install_hint

        raise ImportError(
            f"as_frame=True needs pandas: {install_hint('pandas')}; or load numpy arrays with "
            "as_frame=False (the default)."
        ) from exc
    return pd
