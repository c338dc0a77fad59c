"""The Statlog (German credit) data set, with its codebook decoded."""

from __future__ import annotations

import numpy as np

from skfair._utils._compat import validate_params
from skfair.datasets._base import ATTRIBUTION, decode, make_bunch, read_csv_columns
from skfair.datasets._docs import documented

_FILE = "german_credit.csv.gz"
_TARGET = "credit"
_TARGET_NAMES = ["bad", "good"]
# In the file 1 = good, 2 = bad.
_GOOD = 1

# Labels of german_credit_codebook.txt (the UCI description file), in its order.
_CODEBOOK = {
    "status": {
        "A11": "... < 0 DM",
        "A12": "0 <= ... < 200 DM",
        "A13": "... >= 200 DM / salary assignments for at least 1 year",
        "A14": "no checking account",
    },
    "credit_history": {
        "A30": "no credits taken/ all credits paid back duly",
        "A31": "all credits at this bank paid back duly",
        "A32": "existing credits paid back duly till now",
        "A33": "delay in paying off in the past",
        "A34": "critical account/ other credits existing (not at this bank)",
    },
    "purpose": {
        "A40": "car (new)",
        "A41": "car (used)",
        "A42": "furniture/equipment",
        "A43": "radio/television",
        "A44": "domestic appliances",
        "A45": "repairs",
        "A46": "education",
        "A47": "vacation",
        "A48": "retraining",
        "A49": "business",
        "A410": "others",
    },
    "savings": {
        "A61": "... < 100 DM",
        "A62": "100 <= ... < 500 DM",
        "A63": "500 <= ... < 1000 DM",
        "A64": ".. >= 1000 DM",
        "A65": "unknown/ no savings account",
    },
    "employment": {
        "A71": "unemployed",
        "A72": "... < 1 year",
        "A73": "1 <= ... < 4 years",
        "A74": "4 <= ... < 7 years",
        "A75": ".. >= 7 years",
    },
    "personal_status": {
        "A91": "male : divorced/separated",
        "A92": "female : divorced/separated/married",
        "A93": "male : single",
        "A94": "male : married/widowed",
        "A95": "female : single",
    },
    "other_debtors": {
        "A101": "none",
        "A102": "co-applicant",
        "A103": "guarantor",
    },
    "property": {
        "A121": "real estate",
        "A122": "if not A121 : building society savings agreement/ life insurance",
        "A123": "if not A121/A122 : car or other, not in attribute 6",
        "A124": "unknown / no property",
    },
    "installment_plans": {
        "A141": "bank",
        "A142": "stores",
        "A143": "none",
    },
    "housing": {
        "A151": "rent",
        "A152": "own",
        "A153": "for free",
    },
    "skill_level": {
        "A171": "unemployed/ unskilled - non-resident",
        "A172": "unskilled - resident",
        "A173": "skilled employee / official",
        "A174": "management/ self-employed/ highly qualified employee/ officer",
    },
    "telephone": {
        "A191": "none",
        "A192": "yes, registered under the customers name",
    },
    "foreign_worker": {
        "A201": "yes",
        "A202": "no",
    },
}
# The sex half of the codebook's "Personal status and sex" (attribute 9).
_SEX = {"A91": "male", "A92": "female", "A93": "male", "A94": "male", "A95": "female"}
# Age split of Kamiran & Calders (2009) and AIF360's GermanDataset (privileged: age >= 25).
_AGE_CUTOFF = 25
_AGE_GROUPS = ["<25", ">=25"]

_DESCR = f"""\
.. _german_credit_dataset:

Statlog (German credit) data set
--------------------------------

**Data Set Characteristics:**

:Number of Instances: 1,000
:Number of Attributes: 20 (7 numeric, 13 categorical)
:Target: ``credit``; 1 means good credit risk, 0 bad (the file codes good = 1, bad = 2).
    700 good, 300 bad. The UCI description asks for a cost matrix: predicting "good" for a bad
    customer costs 5, predicting "bad" for a good one costs 1.
:Sensitive features: ``sex`` (female, male), derived from ``personal_status``;
    ``age_group`` ("<25", ">=25"), derived from ``age``; ``foreign_worker`` (yes, no).
    ``foreign_worker`` is also a column of ``data``; ``sex`` and ``age_group`` are not (their
    sources ``personal_status`` and ``age`` are), so for ``sensitive_column=`` add them to
    ``data`` first.
:Missing values: none.

Categorical codes (A11, A12, ...) are decoded into the labels of the UCI codebook
(``german_credit_codebook.txt``); the category order of the DataFrame follows the codebook.

Caveats.

- ``sex`` is derived from ``personal_status`` as the UCI codebook states it (A91, A93, A94
  male; A92, A95 female); no row has A95 ("female : single"). Groemping (2019) found errors in
  the code table of this data set, ``personal_status`` among them: her corrected table (the
  "South German Credit" data) reads this variable as 1 = male : divorced/separated,
  2 = female : non-single or male : single, 3 = male : married/widowed, 4 = female : single.
  The ``sex`` derived here is therefore unreliable; treat fairness results by ``sex`` on this
  data set as illustrations, not findings.
- ``age_group`` follows the split of Kamiran & Calders (2009) and AIF360 (``>=25``: 851 rows).
- With 1,000 rows, group metrics on small groups (37 non-foreign workers) are very noisy.

References
----------
- Hofmann, H. (1994). Statlog (German Credit Data) [Dataset]. UCI Machine Learning Repository.
  https://doi.org/10.24432/C5NC77
- Groemping, U. (2019). South German Credit Data: Correcting a Widely Used Data Set. Report
  4/2019, Beuth University of Applied Sciences Berlin.
- Kamiran, F. & Calders, T. (2009). Classifying without discriminating. 2nd International
  Conference on Computer, Control and Communication.

{ATTRIBUTION}
"""


@validate_params({"as_frame": ["boolean"]}, prefer_skip_nested_validation=True)
@documented
def load_german_credit(*, as_frame=False):
    """Load the Statlog (German credit) data set, bundled with skfair, codebook decoded.

    The data are read from the package; nothing is downloaded. Source: Hofmann (1994), UCI
    Machine Learning Repository, https://doi.org/10.24432/C5NC77, licensed CC BY 4.0 (see
    ``skfair/datasets/data/ATTRIBUTION.md``).

    ==================  =========================================
    Samples             1,000
    Features            20 (7 numeric, 13 categorical)
    Target              1 = good credit risk, 0 = bad
    Sensitive features  sex, age_group, foreign_worker
    ==================  =========================================

    The sensitive feature ``sex`` is derived from ``personal_status`` following the codebook,
    whose code table is known to be wrong in places (Groemping 2019): see ``DESCR``.

    Parameters
    ----------
    as_frame : bool, default=False
        If True, ``data`` and ``sensitive_features`` are pandas DataFrames (categorical columns
        as ``category`` dtype in codebook order), ``target`` a Series, and ``frame`` holds data
        and target. Needs pandas. If False they are numpy arrays (``data`` an object array).

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with the following attributes.

        data : ndarray of shape (1000, 20) or DataFrame
            The 20 features; categorical codes replaced by the codebook's labels.
        target : ndarray of shape (1000,) or Series
            1 for good credit, 0 for bad (int).
        sensitive_features : ndarray of shape (1000, 3) or DataFrame
            ``sex`` ("female"/"male", from ``personal_status``), ``age_group`` ("<25"/">=25",
            from ``age``) and ``foreign_worker`` ("yes"/"no").
        {bunch_columns}
        target_names : ndarray of str
            ``["bad", "good"]``: the label of target 0 and 1.
        {bunch_frame}

    {see_also_loaders load_german_credit}

    References
    ----------
    Hofmann, H. (1994). Statlog (German Credit Data) [Dataset]. UCI Machine Learning Repository.
    https://doi.org/10.24432/C5NC77

    Groemping, U. (2019). South German Credit Data: Correcting a Widely Used Data Set. Report
    4/2019, Beuth University of Applied Sciences Berlin.

    Kamiran, F. and Calders, T. (2009). Classifying without discriminating. 2nd International
    Conference on Computer, Control and Communication.

    Examples
    --------
    >>> from skfair.datasets import load_german_credit
    >>> credit = load_german_credit()
    >>> credit.data.shape, int(credit.target.sum())
    ((1000, 20), 700)
    """
    _, columns = read_csv_columns(_FILE)
    labels = columns.pop(_TARGET)
    target = (labels == _GOOD).astype(np.int64)
    personal_status = columns["personal_status"]
    age = columns["age"]
    sensitive = {
        "sex": decode(personal_status, _SEX, name="personal_status"),
        "age_group": np.array(_AGE_GROUPS, dtype=object)[(age >= _AGE_CUTOFF).astype(np.intp)],
        "foreign_worker": decode(
            columns["foreign_worker"], _CODEBOOK["foreign_worker"], name="foreign_worker"
        ),
    }
    for name, codebook in _CODEBOOK.items():
        columns[name] = decode(columns[name], codebook, name=name)
    categories = {name: list(codebook.values()) for name, codebook in _CODEBOOK.items()}
    categories["sex"] = ["female", "male"]
    categories["age_group"] = _AGE_GROUPS
    return make_bunch(
        features=columns,
        target=target,
        target_name=_TARGET,
        target_names=_TARGET_NAMES,
        sensitive=sensitive,
        descr=_DESCR,
        as_frame=as_frame,
        categories=categories,
    )
