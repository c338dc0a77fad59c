"""The UCI Bank Marketing data set (preprocessed version with age groups)."""

from __future__ import annotations

import numpy as np

from skfair._utils._compat import validate_params
from skfair.datasets._base import ATTRIBUTION, make_bunch, read_csv_columns
from skfair.datasets._docs import documented

_FILE = "bank_marketing.csv.gz"
_TARGET = "subscription"
_TARGET_NAMES = ["no", "yes"]
_SENSITIVE = ("age_group", "marital")
_CATEGORIES = {"age_group": ["<=21", "22-64", ">=65"], "marital": ["married", "non-married"]}

_DESCR = f"""\
.. _bank_marketing_dataset:

UCI Bank Marketing data set
---------------------------

**Data Set Characteristics:**

:Number of Instances: 45,203
:Number of Attributes: 16 (6 numeric, 10 categorical)
:Target: ``subscription``; 1 means the client subscribed a term deposit ("yes"), 0 not
    ("no"). 5,287 yes, 39,916 no.
:Sensitive features: ``age_group`` ("<=21", "22-64", ">=65") and ``marital`` ("married",
    "non-married"). Both are also columns of ``data``; the file holds no numeric age.
:Missing values: none as such; several categorical columns use the category "unknown"
    (``job``, ``education``, ``contact``, ``poutcome``), kept as a category.

Direct marketing phone campaigns of a Portuguese bank (May 2008 to November 2010). This is a
preprocessed version of ``bank-full.csv``: 8 of its 45,211 rows removed, age bucketed into
``age_group``, marital status binarised into ``marital``.

Caveats. ``duration`` (of the last call, in seconds) is only known after the call and decides
the outcome to a large extent (a call of duration 0 never subscribes); the UCI description
recommends leaving it out of realistic predictive models. Rows are in chronological order, so
a shuffled split mixes campaign periods.

References
----------
- Moro, S., Rita, P. & Cortez, P. (2014). Bank Marketing [Dataset]. UCI Machine Learning
  Repository. https://doi.org/10.24432/C5K306
- Moro, S., Cortez, P. & Rita, P. (2014). A data-driven approach to predict the success of bank
  telemarketing. Decision Support Systems 62, 22-31.

{ATTRIBUTION}
"""


@validate_params({"as_frame": ["boolean"]}, prefer_skip_nested_validation=True)
@documented
def load_bank_marketing(*, as_frame=False):
    """Load the UCI Bank Marketing data set (with age groups), bundled with skfair.

    The data are read from the package; nothing is downloaded. Source: Moro, Rita & Cortez
    (2014), UCI Machine Learning Repository, https://doi.org/10.24432/C5K306, licensed CC BY 4.0
    (see ``skfair/datasets/data/ATTRIBUTION.md``).

    ==================  =========================================
    Samples             45,203
    Features            16 (6 numeric, 10 categorical)
    Target              1 = subscribed a term deposit, 0 = did not
    Sensitive features  age_group, marital
    ==================  =========================================

    Parameters
    ----------
    {as_frame}
        If False they are numpy arrays (``data`` an object array).

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with the following attributes.

        data : ndarray of shape (45203, 16) or DataFrame
            The 16 features, the sensitive ones included.
        target : ndarray of shape (45203,) or Series
            1 for "yes", 0 for "no" (int).
        sensitive_features : ndarray of shape (45203, 2) or DataFrame
            ``age_group`` and ``marital``, as strings.
        {bunch_columns}
        target_names : ndarray of str
            ``["no", "yes"]``: the label of target 0 and 1.
        {bunch_frame}

    {see_also_loaders load_bank_marketing}

    References
    ----------
    Moro, S., Rita, P. and Cortez, P. (2014). Bank Marketing [Dataset]. UCI Machine Learning
    Repository. https://doi.org/10.24432/C5K306

    Moro, S., Cortez, P. and Rita, P. (2014). A data-driven approach to predict the success of
    bank telemarketing. Decision Support Systems 62, 22-31.

    Examples
    --------
    >>> from skfair.datasets import load_bank_marketing
    >>> bank = load_bank_marketing()
    >>> bank.data.shape, int(bank.target.sum())
    ((45203, 16), 5287)
    """
    _, columns = read_csv_columns(_FILE)
    labels = columns.pop(_TARGET)
    unexpected = set(np.unique(labels).tolist()) - set(_TARGET_NAMES)
    if unexpected:
        raise ValueError(f"Unexpected {_TARGET} labels {sorted(unexpected)} in {_FILE}.")
    return make_bunch(
        features=columns,
        target=(labels == _TARGET_NAMES[1]).astype(np.int64),
        target_name=_TARGET,
        target_names=_TARGET_NAMES,
        sensitive={name: columns[name].copy() for name in _SENSITIVE},
        descr=_DESCR,
        as_frame=as_frame,
        categories=_CATEGORIES,
    )
