"""The paper's AcceleDist / ApproxDist in searchsorted form (Algorithms 2 and 3).

For one projection direction, the rows are sorted by their projection; each anchor compares
itself with at most ``m2`` other-group points on each side in that order (same-group points are
skipped and do not count). The reference implementation finds them with an unbounded scan,
O(n) per anchor in the worst case; here one ``searchsorted`` into the sorted positions of the
anchor's complement finds them in O(log n), with the same candidate set.

The candidates of consecutive rows overlap: a block of consecutive sorted rows is compared in
one BLAS matrix product (Gram form) with the stretch of sorted rows that holds all their
candidates, for every attribute and group at once, the stretches being overlapping views of one
sorted copy of the rows. The Gram values only select; the kernel re-evaluates each row's best
candidate (and any near-tie), so the distances are those of the kernel, bit for bit.
"""

import numpy as np
from joblib import Parallel, delayed
from numpy.lib.stride_tricks import as_strided

from skfair._utils._compat import one_blas_thread
from skfair.neighbors._kernel import gram_tolerance, merge_best, paired_sqdist, project

# Gram entries (row x stretch row) computed per batch of matrix products: bounds the working
# memory and keeps a batch in cache.
_PAIR_BUDGET = 2**17
# Consecutive sorted rows whose windows are computed by one matrix product.
_BLOCK_ROWS = 32
# Rows whose candidates lie farther than this many window widths away are computed apart.
_REACH_CAP = 8


def approx_other_group(
    ZT, attribute_codes, n_groups, projections, m2, *, weights=None, n_jobs=None
):
    """Run AcceleDist for every projection and attribute, reducing as the results arrive.

    Parameters
    ----------
    ZT : ndarray of shape (n_features, n_samples)
    attribute_codes : ndarray of shape (n_samples, n_attributes)
    n_groups : sequence of int, one per attribute
    projections : ndarray of shape (m1, n_e, n_features), unit rows
    m2 : int
    weights : ndarray of shape (n_samples,), default=None
        Row weights of the sums (None: every row counts once).

    Returns
    -------
    paper_max, paper_sum : ndarray of shape (n_attributes,)
        ``min`` over all projections of ``max_p d_min(p)`` and of ``sum_p w_p d_min(p)`` (Algorithm
        2, lines 6-8: the minimum of whole sums, not of per-point values).
    pointwise_sqdist, pointwise_index : ndarray of shape (n_samples, n_attributes)
        Per point, the smallest squared candidate distance over all projections and its row.
    """
    n = ZT.shape[1]
    n_attributes = attribute_codes.shape[1]
    centred = _CentredRows.from_transposed(ZT)
    paper_max = np.full(n_attributes, np.inf)
    paper_sum = np.full(n_attributes, np.inf)
    pointwise_sqdist = np.full((n, n_attributes), np.inf)
    pointwise_index = np.full((n, n_attributes), -1, dtype=np.intp)
    jobs = (
        delayed(_one_repetition)(ZT, centred, attribute_codes, n_groups, directions, m2)
        for directions in projections
    )
    # Many small products: BLAS threads would only contend (and stall under load).
    with one_blas_thread():
        repetitions = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(jobs)
        for repetition in repetitions:
            for sqdist, index in repetition:  # one (n, n_attributes) pair per direction
                distance = np.sqrt(sqdist)
                paper_max = np.minimum(paper_max, distance.max(axis=0))
                weighted = distance if weights is None else weights[:, None] * distance
                paper_sum = np.minimum(paper_sum, weighted.sum(axis=0))
                for a in range(n_attributes):
                    merge_best(
                        pointwise_sqdist[:, a], pointwise_index[:, a], sqdist[:, a], index[:, a]
                    )
    return paper_max, paper_sum, pointwise_sqdist, pointwise_index


class _CentredRows:
    """Centred rows and their squared norms, for Gram-form squared distances
    ``|a|^2 + |c|^2 - 2 a.c``, with the tolerance of that form (the mean does not change any
    distance and keeps the rounding small)."""

    def __init__(self, points, sqnorm, tolerance):
        self.points = points
        self.sqnorm = sqnorm
        self.tolerance = tolerance

    @classmethod
    def from_transposed(cls, ZT):
        centred = ZT.T - ZT.mean(axis=1)
        sqnorm = np.einsum("ij,ij->i", centred, centred)
        return cls(centred, sqnorm, gram_tolerance(ZT.shape[0], sqnorm.max()))


def _one_repetition(ZT, centred, attribute_codes, n_groups, directions, m2):
    """AcceleDist (Algorithm 3) for each of the ``n_e`` orthonormal directions of one draw.

    The sort, the sorted copy of the rows and the matrix products serve every attribute and
    group.
    """
    n, n_attributes = attribute_codes.shape
    searched = [a for a in range(n_attributes) if n_groups[a] >= 2]
    results = []
    for w in directions:
        order = np.argsort(project(ZT, w), kind="stable")
        sqdist = np.full((n, n_attributes), np.inf)
        index = np.full((n, n_attributes), -1, dtype=np.intp)
        if searched:
            windows = [_candidate_positions(attribute_codes[order, a], m2) for a in searched]
            grams = _window_gram(centred, order, windows)
            # The kernel reads the sorted coordinates: nearby positions, cache-friendly.
            ZT_sorted = np.take(ZT, order, axis=1)
            for a, (position, _), gram in zip(searched, windows, grams, strict=True):
                sqdist[order, a], index[order, a] = _best_candidate(
                    ZT_sorted, order, position, gram, centred.tolerance
                )
        results.append((sqdist, index))
    return results


def _candidate_positions(codes_sorted, m2):
    """Sorted positions of every row's ``m2`` nearest other-group rows on each side.

    Returns the positions, shape (n, 2 m2), and whether each exists. The candidates of a row
    of group ``v`` with ``k`` complement positions to its left are ``others[k - m2 : k + m2]``.
    """
    n = codes_sorted.size
    position = np.empty((n, 2 * m2), dtype=np.intp)
    exists = np.zeros((n, 2 * m2), dtype=bool)
    slots = np.arange(-m2, m2)
    for group in np.unique(codes_sorted):
        in_group = codes_sorted == group
        anchors = np.flatnonzero(in_group)
        others = np.flatnonzero(~in_group)
        if others.size == 0:
            continue
        slot = np.searchsorted(others, anchors)[:, None] + slots
        exists[anchors] = (slot >= 0) & (slot < others.size)
        position[anchors] = others[np.clip(slot, 0, others.size - 1)]
    # Missing candidates point at the row itself: inside every window, never selected.
    np.copyto(position, np.arange(n)[:, None], where=~exists)
    return position, exists


def _best_candidate(ZT_sorted, order, position, gram, tolerance):
    """Kernel distance to, and row of, each row's best candidate (smallest row among ties).

    ``gram`` holds the Gram-form values of the candidates at ``position`` (``inf`` for missing
    ones); only candidates within ``tolerance`` of the smallest are re-evaluated.
    """
    n = gram.shape[0]
    local = np.arange(n)
    column = np.argmin(gram, axis=1)
    low = gram[local, column]
    limit = low + tolerance
    best_position = position[local, column]
    best = paired_sqdist(ZT_sorted, local, best_position)
    best_row = order[best_position]
    missing = np.isinf(low)
    best[missing], best_row[missing] = np.inf, -1
    # Near-ties in Gram form (rare): the kernel decides among every candidate within tolerance.
    gram[local, column] = np.inf
    tied = np.flatnonzero(gram.min(axis=1) <= limit)
    if tied.size:
        owner, slot = np.nonzero(gram[tied] <= limit[tied, None])
        owner = tied[owner]
        value = paired_sqdist(ZT_sorted, owner, position[owner, slot])
        candidate_row = order[position[owner, slot]]
        # The best of each row's near-ties: smallest value, then smallest row.
        first = np.lexsort((candidate_row, value, owner))
        keep = first[np.r_[True, owner[first][1:] != owner[first][:-1]]]
        target = owner[keep]
        current_best, current_row = best[target], best_row[target]
        merge_best(current_best, current_row, value[keep], candidate_row[keep])
        best[target], best_row[target] = current_best, current_row
    return best, best_row


def _window_gram(centred, order, windows):
    """Gram-form squared distances of every sorted row to its candidates, one array per
    attribute.

    Block ``b`` holds the sorted rows ``[b T, (b + 1) T)``; every candidate of a block lies in
    the rows from ``b T - M`` to ``(b + 1) T + M``, ``M`` the largest reach of the block's rows:
    an overlapping view of one padded sorted copy of the rows, the only copy. The products of
    one batch of blocks serve every attribute and group. Rows whose candidates reach farther
    than ``_REACH_CAP`` windows (rare) are computed from gathered candidate rows instead.
    """
    n, n_features = centred.points.shape
    width = windows[0][0].shape[1]
    rows = np.arange(n)
    # The first half of a row's candidates lies before it, the second after it; a missing
    # candidate is the row itself.
    half = width // 2
    reach = np.zeros(n, dtype=np.intp)
    for position, _ in windows:
        np.maximum(reach, rows - position[:, :half].min(axis=1), out=reach)
        np.maximum(reach, position[:, half:].max(axis=1) - rows, out=reach)
    far = np.flatnonzero(reach > _REACH_CAP * width)
    reach[far] = 0
    margin = int(reach.max())
    padded = np.empty((n + 2 * margin + _BLOCK_ROWS, n_features))
    padded[:margin] = 0
    padded[margin + n :] = 0
    points = padded[margin : margin + n]
    np.take(centred.points, order, axis=0, out=points)
    sqnorm = centred.sqnorm[order]
    products = [np.empty((n, width)) for _ in windows]
    n_blocks = -(-n // _BLOCK_ROWS)
    block_reach = np.maximum.reduceat(reach, np.arange(0, n, _BLOCK_ROWS))
    row_step, column_step = padded.strides
    first = 0
    while first < n_blocks:
        # Batches of consecutive blocks with a common margin, within the pair budget.
        stretch_guess = _BLOCK_ROWS + 2 * int(block_reach[first])
        last = min(n_blocks, first + max(1, _PAIR_BUDGET // (_BLOCK_ROWS * stretch_guess)))
        chunk_margin = int(block_reach[first:last].max())
        stretch = _BLOCK_ROWS + 2 * chunk_margin
        start = margin - chunk_margin + first * _BLOCK_ROWS
        view = as_strided(
            padded[start:],
            shape=(last - first, stretch, n_features),
            strides=(_BLOCK_ROWS * row_step, row_step, column_step),
            writeable=False,
        )
        anchor_rows = padded[margin + first * _BLOCK_ROWS : margin + last * _BLOCK_ROWS]
        anchor_rows = anchor_rows.reshape(last - first, _BLOCK_ROWS, n_features)
        block_products = np.matmul(anchor_rows, view.transpose(0, 2, 1)).reshape(-1)
        mine = slice(first * _BLOCK_ROWS, min(last * _BLOCK_ROWS, n))
        local = rows[mine] - first * _BLOCK_ROWS
        # Flat index of (row, candidate): the row's line, then the candidate's offset from the
        # start of its block's stretch.
        # Far rows' candidates are outside the stretch: clipped here, replaced below.
        base = local * stretch + chunk_margin + (local % _BLOCK_ROWS)
        for (position, _), product in zip(windows, products, strict=True):
            offset = base[:, None] + position[mine] - rows[mine, None]
            product[mine] = np.take(block_products, offset, mode="clip")
        first = last
    for chunk in np.array_split(far, -(-far.size * width * n_features // _PAIR_BUDGET) or 1):
        for (position, _), product in zip(windows, products, strict=True):
            product[chunk] = np.einsum("ik,ijk->ij", points[chunk], points[position[chunk]])
    grams = []
    for (position, exists), product in zip(windows, products, strict=True):
        gram = np.take(sqnorm, position)
        gram += sqnorm[:, None]
        product *= 2
        gram -= product
        gram[~exists] = np.inf
        grams.append(gram)
    return grams
