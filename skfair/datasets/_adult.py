"""The UCI Adult (census income) data set."""

from __future__ import annotations

import numpy as np

from skfair._utils._compat import StrOptions, validate_params
from skfair.datasets._base import ATTRIBUTION, make_bunch, read_csv_columns
from skfair.datasets._docs import documented

_FILES = {"train": ("adult.csv.gz",), "test": ("adult_test.csv.gz",)}
_FILES["all"] = _FILES["train"] + _FILES["test"]
_TARGET = "income-per-year"
_TARGET_NAMES = ["<=50K", ">50K"]
_SENSITIVE = ("sex", "race")
_MISSING = "?"

_DESCR = f"""\
.. _adult_dataset:

UCI Adult (census income) data set
----------------------------------

**Data Set Characteristics:**

:Number of Instances: 32,561 (split="train", the original ``adult.data``), 16,281
    (split="test", the original ``adult.test``), 48,842 (split="all", train rows first).
:Number of Attributes: 14 (6 numeric, 8 categorical).
:Target: ``income-per-year``; 1 means ">50K", 0 means "<=50K" (``target_names[target]`` gives
    the original label). Positive rate: 7,841 / 32,561 in train, 3,846 / 16,281 in test.
:Sensitive features: ``sex`` (Female, Male) and ``race`` (Amer-Indian-Eskimo,
    Asian-Pac-Islander, Black, Other, White). Both are also columns of ``data``, so
    ``sensitive_column="sex"`` works on ``data`` as a DataFrame or with the column index.
:Missing values: ``workclass``, ``occupation`` and ``native-country`` hold missing values,
    marked "?" in the files and returned as ``np.nan`` (NaN in the categorical columns of the
    DataFrame). ``sex`` and ``race`` have none.

Extraction by Barry Becker from the 1994 US Census database, prepared by Ronny Kohavi. The task
is to predict whether a person earns more than 50,000 US dollars a year. ``fnlwgt`` is the
census sampling weight, not a property of the person.

Caveats. The data describe the US of 1994 and the 50K threshold is not adjusted for inflation;
Ding et al. (2021) show that conclusions about fairness interventions drawn from Adult can
change on newer census extracts, and suggest treating it as a historical benchmark only.

References
----------
- Becker, B. & Kohavi, R. (1996). Adult [Dataset]. UCI Machine Learning Repository.
  https://doi.org/10.24432/C5XW20
- Kohavi, R. (1996). Scaling up the accuracy of naive-Bayes classifiers: a decision-tree hybrid.
  Proceedings of KDD-96.
- Ding, F., Hardt, M., Miller, J. & Schmidt, L. (2021). Retiring Adult: New Datasets for Fair
  Machine Learning. Advances in Neural Information Processing Systems 34.

{ATTRIBUTION}
"""


@validate_params(
    {"as_frame": ["boolean"], "split": [StrOptions({"train", "test", "all"})]},
    prefer_skip_nested_validation=True,
)
@documented
def load_adult(*, as_frame=False, split="train"):
    """Load the UCI Adult (census income) data set, bundled with skfair.

    The data are read from the package; nothing is downloaded. Source: Becker & Kohavi (1996),
    UCI Machine Learning Repository, https://doi.org/10.24432/C5XW20, licensed CC BY 4.0
    (see ``skfair/datasets/data/ATTRIBUTION.md``).

    ==================  =========================================
    Samples             32,561 (train), 16,281 (test)
    Features            14 (6 numeric, 8 categorical)
    Target              1 = income >50K, 0 = income <=50K
    Sensitive features  sex, race
    ==================  =========================================

    Parameters
    ----------
    {as_frame}
        If False they are numpy arrays: ``data`` an object array (ints in the numeric columns,
        strings in the categorical ones), ``sensitive_features`` an object array of shape
        (n_samples, 2).
    split : {"train", "test", "all"}, default="train"
        The original training file (``adult.data``), test file (``adult.test``), or both
        (training rows first).

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with the following attributes.

        data : ndarray of shape (n_samples, 14) or DataFrame
            All 14 features, the sensitive ones included. Missing values ("?" in the file) are
            ``np.nan``.
        target : ndarray of shape (n_samples,) or Series
            1 for ">50K", 0 for "<=50K" (int).
        sensitive_features : ndarray of shape (n_samples, 2) or DataFrame
            The columns ``sex`` and ``race``, as strings.
        feature_names : ndarray of str
            Names of the columns of ``data``.
        categorical_features : ndarray of str
            Names of the categorical columns of ``data``.
        sensitive_feature_names : ndarray of str
            ``["sex", "race"]``.
        target_names : ndarray of str
            ``["<=50K", ">50K"]``: the original label of target 0 and 1.
        {bunch_frame}

    {see_also_loaders load_adult}

    References
    ----------
    Becker, B. and Kohavi, R. (1996). Adult [Dataset]. UCI Machine Learning Repository.
    https://doi.org/10.24432/C5XW20

    Kohavi, R. (1996). Scaling up the accuracy of naive-Bayes classifiers: a decision-tree
    hybrid. Proceedings of the Second International Conference on Knowledge Discovery and Data
    Mining (KDD-96), 202-207.

    Ding, F., Hardt, M., Miller, J. and Schmidt, L. (2021). Retiring Adult: New Datasets for Fair
    Machine Learning. Advances in Neural Information Processing Systems 34.

    Examples
    --------
    >>> from skfair.datasets import load_adult
    >>> adult = load_adult()
    >>> adult.data.shape, adult.target.mean().round(4)
    ((32561, 14), np.float64(0.2408))
    >>> adult.sensitive_feature_names.tolist()
    ['sex', 'race']
    """
    columns = None
    for filename in _FILES[split]:
        names, part = read_csv_columns(filename)
        columns = (
            part
            if columns is None
            else {name: np.concatenate([columns[name], part[name]]) for name in names}
        )
    labels = columns.pop(_TARGET)
    unexpected = set(np.unique(labels).tolist()) - set(_TARGET_NAMES)
    if unexpected:
        raise ValueError(f"Unexpected {_TARGET} labels {sorted(unexpected)} in the Adult files.")
    target = (labels == _TARGET_NAMES[1]).astype(np.int64)
    for values in columns.values():
        if values.dtype == object:
            values[values == _MISSING] = np.nan
    return make_bunch(
        features=columns,
        target=target,
        target_name=_TARGET,
        target_names=_TARGET_NAMES,
        sensitive={name: columns[name].copy() for name in _SENSITIVE},
        descr=_DESCR,
        as_frame=as_frame,
    )
