"""The bounded training sample of the audit's models on large data.

Without ``--model`` the audit trains a plain model, and several sections retrain copies of it
(bootstrap replicas, a reweighed and a repaired copy, the constrained model), on the training
rows. Their memory grows with those rows while the evaluation, which the report is about,
does not need them all: above :data:`DEFAULT_MAX_TRAIN_ROWS` training rows (``--max-train-rows``)
the models are trained on a stratified random sample of that many, and every metric is still
computed on all evaluation rows. The summary says so, with the numbers.

Why 200,000 by default. The bundled data sets and most public fairness data sets (Adult's
32,561 training rows, Bank Marketing's 45,211, German Credit's 1,000) stay whole, so their
reports do not change. A logistic regression's coefficients have standard errors of order
``1 / sqrt(n)``: at 200,000 rows they are within about 0.2 % of a standard deviation of the
features' effect, so a larger training set moves very few predictions, far fewer than the
evaluation rows' own sampling noise in the reported rates. And the audit's memory, which at
10^6 rows was dominated by fitting on 700,000 training rows (about 120 bytes per training row
and retrained copy), stays within a few times the size of the file.
"""

from __future__ import annotations

from math import ceil

import numpy as np

from skfair._utils._compat import _approximate_mode
from skfair._utils._random import check_generator, check_random_state

DEFAULT_MAX_TRAIN_ROWS = 200_000


def stratified_split(y, test_size, random_state):
    """Training and evaluation rows of a stratified random split, as ``train_test_split``.

    The same rows, in the same order, as ``sklearn.model_selection.train_test_split(
    np.arange(len(y)), test_size=test_size, random_state=random_state, stratify=y)`` (the
    draws of scikit-learn's ``StratifiedShuffleSplit``, made in the same order), without its
    Python lists of every row number: at 10^6 rows those took about 40 bytes a row while
    splitting, and left the memory fragmented after.

    Parameters
    ----------
    y : ndarray of shape (n_rows,)
        The classes the split is stratified by (each with at least 2 rows).
    test_size : float in (0, 1)
        Share of the rows held out for evaluation (rounded up).
    random_state : int
        Seeds the split.

    Returns
    -------
    train, test : ndarray of int
    """
    n_rows = y.shape[0]
    n_test = ceil(test_size * n_rows)
    n_train = n_rows - n_test
    _, classes, counts = np.unique(y, return_inverse=True, return_counts=True)
    if counts.min() < 2 or min(n_train, n_test) < counts.size:
        raise ValueError(
            f"A stratified split of {n_rows:,} rows with test_size={test_size} needs at least "
            f"2 rows of each class and {counts.size} rows on each side; the classes have "
            f"{counts.tolist()} rows. Pass a test size that leaves rows of every class on "
            "both sides, or name the evaluation rows with --eval-rows."
        )
    by_class = np.split(np.argsort(classes.reshape(-1), kind="stable"), np.cumsum(counts)[:-1])
    rng = check_random_state(random_state)
    n_i = _approximate_mode(counts, n_train, rng)
    t_i = _approximate_mode(counts - n_i, n_test, rng)
    train, test = [], []
    for rows, count, to_train, to_test in zip(by_class, counts, n_i, t_i, strict=True):
        rows = rows.take(rng.permutation(count), mode="clip")
        train.append(rows[:to_train])
        test.append(rows[to_train : to_train + to_test])
    return rng.permutation(np.concatenate(train)), rng.permutation(np.concatenate(test))


def stratified_subsample(strata, size, random_state):
    """Positions of ``size`` rows drawn without replacement, stratified by ``strata``.

    Each stratum (cell of the target and the sensitive groups) keeps at least one row when
    there are no more strata than ``size``; the other rows are shared out in proportion to the
    strata's sizes (largest remainders, ties to the first stratum), and drawn at random within
    each stratum.

    Parameters
    ----------
    strata : ndarray of shape (n_rows,) of int
        Stratum code of each row.
    size : int
        Rows to keep; all rows (``arange(n_rows)``) when there are not more.
    random_state : int, RandomState instance, Generator or None
        Seeds the draw.

    Returns
    -------
    ndarray of int
        The positions of the kept rows, in increasing order.
    """
    n_rows = strata.shape[0]
    if n_rows <= size:
        return np.arange(n_rows)
    _, stratum, counts = np.unique(strata, return_inverse=True, return_counts=True)
    stratum = stratum.reshape(-1)
    allocation = _allocate(counts, size)
    # Rows sorted by stratum, in random order within each; the first allocation[s] of
    # stratum s are kept.
    order = np.lexsort((check_generator(random_state).random(n_rows), stratum))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.arange(n_rows) - starts[stratum[order]]
    return np.sort(order[rank < allocation[stratum[order]]])


def _allocate(counts, size):
    """Rows kept per stratum: ``size`` in all, proportional, at least one each if possible."""
    floor = np.ones_like(counts) if counts.size <= size else np.zeros_like(counts)
    share = (counts - floor) * ((size - floor.sum()) / (counts - floor).sum())
    allocation = floor + np.floor(share).astype(counts.dtype)
    left = size - allocation.sum()
    # Largest remainders first; a stable sort gives ties to the first stratum.
    allocation[np.argsort(-(share - np.floor(share)), kind="stable")[:left]] += 1
    return allocation


def describe_subsample(n_kept, n_train, n_evaluation, max_train_rows, random_state):
    """The summary's line on the training sample."""
    return (
        f"the models were trained on {n_kept:,} of the {n_train:,} training rows, drawn at "
        "random within each cell of the target and the sensitive attributes "
        f"(random_state={random_state}), because the training rows exceed --max-train-rows "
        f"{max_train_rows:,} (a bound on the audit's memory and time; a larger training set "
        "changes few predictions of these models). Every metric uses all "
        f"{n_evaluation:,} evaluation rows; the sections that retrain copies of the model "
        "(repairing the data, trained under a constraint, stability) use this sample too."
    )
