"""The one distance kernel behind every reported other-group distance.

All methods (brute force, KD-tree, projection sort, approximation) report distances computed
here, on the same coordinates, in the same order of operations, so that they agree bit for
bit. The Gram form ``|p|^2 + |q|^2 - 2 p.q`` is never used for a reported value:
it depends on the chunking and turns exact duplicates into values of about 1e-8.
"""

import numpy as np


def paired_sqdist(ZT, rows_a, rows_b):
    """Squared Euclidean distances between paired rows ``rows_a[i]`` and ``rows_b[i]``.

    ``ZT`` is the transposed data, shape (n_features, n_samples), so that each coordinate is a
    contiguous row. ``rows_a`` and ``rows_b`` broadcast against each other. Coordinates are
    accumulated left to right with a separate multiply and add, never reordered.
    """
    return _sum_of_squares(column[rows_a] - column[rows_b] for column in ZT)


def block_sqdist(ZT_anchor, ZT_candidate):
    """Squared distances between every anchor and every candidate, shape (n_a, n_c).

    ``ZT_anchor`` is (n_features, n_a) and ``ZT_candidate`` (n_features, n_c); the order of
    operations is that of :func:`paired_sqdist`, so each entry is bit-identical to it.
    """
    return _sum_of_squares(
        anchor[:, None] - candidate[None, :]
        for anchor, candidate in zip(ZT_anchor, ZT_candidate, strict=True)
    )


def _sum_of_squares(differences):
    """Sum of the squares of the coordinate ``differences`` (fresh arrays, squared in place),
    accumulated left to right with a separate multiply and add: the kernel's order of
    operations."""
    acc = None
    for diff in differences:
        np.multiply(diff, diff, out=diff)
        if acc is None:
            acc = diff
        else:
            acc += diff
    return acc


def gram_tolerance(n_features, max_sqnorm):
    """Bound on the rounding of Gram-form squared distances, for selecting kernel candidates.

    For rows of squared norm at most ``max_sqnorm``, ``|a|^2 + |c|^2 - 2 a.c`` (any summation
    order, e.g. BLAS) differs from the exact squared distance by at most about
    ``(4 p + 12) eps max_sqnorm``, and the kernel by ``4 (p + 1) eps max_sqnorm`` more. A
    candidate whose Gram value exceeds an anchor's smallest Gram value by more than this
    tolerance cannot be, nor tie with, the kernel's nearest: twice the sum, with margin.
    """
    return 32 * (n_features + 4) * np.finfo(np.float64).eps * max_sqnorm


def project(ZT, w):
    """Projections ``<z_p, w>`` of all rows, accumulated coordinate by coordinate.

    A BLAS matrix-vector product may group the sum differently for different rows; this form
    gives bitwise-identical projections to identical rows, so duplicates tie exactly.
    """
    acc = ZT[0] * w[0]
    for column, weight in zip(ZT[1:], w[1:], strict=True):
        acc += column * weight
    return acc


def argmin_smallest_row(sqdist, rows):
    """Row-wise minimum of ``sqdist`` and, among tied minimisers, the smallest row index.

    ``sqdist`` and ``rows`` have shape (n_anchors, n_candidates); entries to ignore hold
    ``inf``. Anchors without any finite candidate get index -1.
    """
    best = sqdist.min(axis=1)
    tied = np.where(sqdist == best[:, None], rows, np.iinfo(np.intp).max)
    index = tied.min(axis=1)
    index[np.isinf(best)] = -1
    return best, index


def merge_best(best, index, new_best, new_index):
    """Keep, per anchor, the smaller distance; on a tie the smaller row index (in place)."""
    better = (new_best < best) | (
        (new_best == best) & (new_index >= 0) & ((index < 0) | (new_index < index))
    )
    best[better] = new_best[better]
    index[better] = new_index[better]
