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
    y : ndarray of shape (n_rows,) of int
        The class code of each row, from 0 (the rows are stratified by it); each class present
        has at least 2 rows.
    test_size : float in (0, 1)
        Share of the rows held out for evaluation (rounded up).
    random_state : int
        Seeds the split.

    Returns
    -------
    train, test : ndarray of int

    Notes
    -----
    ``StratifiedShuffleSplit`` takes each class's rows in increasing order, permutes them
    with ``rng.permutation(n_class)``, and finally permutes the concatenated training (and
    evaluation) rows. Shuffling an array in place draws the same numbers and moves its
    elements as ``permutation`` moves ``arange``, so the rows are shuffled in place here.
    """
    n_rows = y.shape[0]
    n_test = ceil(test_size * n_rows)
    n_train = n_rows - n_test
    present = np.flatnonzero(np.bincount(y))
    counts = np.bincount(y)[present]
    if counts.min() < 2 or min(n_train, n_test) < counts.size:
        raise ValueError(
            f"A stratified split of {n_rows:,} rows with test_size={test_size} needs at least "
            f"2 rows of each class and {counts.size} rows on each side; the classes have "
            f"{counts.tolist()} rows. Pass a test size that leaves rows of every class on "
            "both sides, or name the evaluation rows with --eval-rows."
        )
    rng = check_random_state(random_state)
    n_i = _approximate_mode(counts, n_train, rng)
    t_i = _approximate_mode(counts - n_i, n_test, rng)
    train, test = [], []
    for code, to_train, to_test in zip(present, n_i, t_i, strict=True):
        rows = np.flatnonzero(y == code)
        rng.shuffle(rows)
        train.append(rows[:to_train])
        test.append(rows[to_train : to_train + to_test])
    train, test = np.concatenate(train), np.concatenate(test)
    rng.shuffle(train)
    rng.shuffle(test)
    return train, test


def stratified_subsample(strata, size, random_state):
    """Positions of ``size`` rows drawn without replacement, stratified by ``strata``.

    Each stratum (cell of the target and the sensitive groups) keeps at least one row when
    there are no more strata than ``size``; the other rows are shared out in proportion to the
    strata's sizes (largest remainders, ties to the first stratum), and drawn uniformly at
    random within each stratum.

    Parameters
    ----------
    strata : ndarray of shape (n_rows,) of int
        Stratum code of each row, from 0 (at most about ``n_rows`` codes).
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
    counts = np.bincount(strata)
    present = np.flatnonzero(counts)
    allocation = np.zeros_like(counts)
    allocation[present] = _allocate(counts[present], size)
    # The rows grouped by stratum (a stable sort: by position within one), and the kept
    # ones drawn from each group: one array of row numbers, no per-row random keys.
    grouped = np.argsort(strata, kind="stable")
    starts = np.cumsum(counts) - counts
    rng = check_generator(random_state)
    kept = [
        grouped[starts[s] + rng.choice(counts[s], size=allocation[s], replace=False)]
        for s in present
        if allocation[s]
    ]
    return np.sort(np.concatenate(kept))


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
