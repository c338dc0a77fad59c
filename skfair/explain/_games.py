"""The marginal (interventional) game of a fitted model over a pooled background.

``v(S; x) = (1/K) sum_k f(x_S, b^(k)_{-S})`` (Miroshnikov et al. 2022, eq. 4.3), evaluated
on hybrid rows that take the coalition's columns from an evaluation row and the others from a
background row. The value depends on ``x`` only through ``x_S``, so each coalition is
evaluated on the distinct rows of ``X_S`` only and broadcast back. Hybrids of several
coalitions are packed into one model call of at most ``_MAX_HYBRID_ROWS`` rows.
"""

from __future__ import annotations

import numpy as np

from skfair._utils._rows import column_codes

# Rows per model call, and cells (rows x columns) per call. Small calls keep the hybrid block
# in cache while the model reads it: on the benchmark machine 2**15 rows per call ran faster
# than one predict_proba call on 10**6 rows per row (benchmarks/bench_explain.py).
_MAX_HYBRID_ROWS = 2**15
_MAX_HYBRID_CELLS = 2**22


class RowPool:
    """Evaluation rows and background rows, from which hybrid rows are assembled.

    Both are kept column by column in their own container type (ndarray, or the arrays of a
    DataFrame, so dtypes such as categoricals survive), and hybrids are returned in the type of
    the input.
    """

    def __init__(self, X_eval, background):
        self.is_frame = hasattr(X_eval, "iloc")
        if self.is_frame:
            self.columns = list(X_eval.columns)
            self._eval = [X_eval.iloc[:, j].array for j in range(len(self.columns))]
            self._background = [background.iloc[:, j].array for j in range(len(self.columns))]
        else:
            self._eval_matrix = np.asarray(X_eval)
            self._background_matrix = np.asarray(background)
        self.n_eval = X_eval.shape[0]
        self.n_background = background.shape[0]
        self.n_features = X_eval.shape[1]

    def eval_column(self, j):
        return self._eval[j] if self.is_frame else self._eval_matrix[:, j]

    def hybrids(self, requests):
        """Hybrid rows for ``requests``: a list of ``(eval_rows, column_mask)``.

        For each request, every evaluation row is paired with every background row (row-major:
        the background varies fastest); columns in ``column_mask`` come from the evaluation row.
        """
        n_background = self.n_background
        sizes = [len(rows) * n_background for rows, _ in requests]
        offsets = np.cumsum([0, *sizes])
        if self.is_frame:
            return self._frame_hybrids(requests, sizes)
        background = self._background_matrix
        hybrid = np.empty((offsets[-1], self.n_features), dtype=background.dtype)
        for (rows, mask), start, stop in zip(requests, offsets[:-1], offsets[1:], strict=True):
            # A (rows, background, features) view: broadcast copies instead of gathers.
            block = hybrid[start:stop].reshape(len(rows), n_background, self.n_features)
            block[...] = background
            columns = np.flatnonzero(mask)
            block[:, :, columns] = self._eval_matrix[rows][:, None, columns]
        return hybrid

    def _frame_hybrids(self, requests, sizes):
        import pandas as pd

        n_background = self.n_background
        background_index = np.concatenate(
            [np.tile(np.arange(n_background), len(rows)) for rows, _ in requests]
        )
        eval_index = np.concatenate([np.repeat(rows, n_background) for rows, _ in requests])
        masks = np.array([mask for _, mask in requests])
        columns = {}
        for j, name in enumerate(self.columns):
            # take() on each column's own array keeps its dtype (categoricals included).
            values = self._background[j].take(background_index)
            from_eval = np.repeat(masks[:, j], sizes)
            if from_eval.any():
                values[from_eval] = self._eval[j].take(eval_index[from_eval])
            columns[name] = values
        return pd.DataFrame(columns, copy=False)


def factorize_columns(pool):
    """Integer code of every evaluation row in each column (NaN is its own code)."""
    codes = np.empty((pool.n_eval, pool.n_features), dtype=np.int64)
    cardinality = np.empty(pool.n_features, dtype=np.int64)
    for j in range(pool.n_features):
        n_values, codes[:, j] = column_codes(pool.eval_column(j))
        cardinality[j] = max(n_values, 1)
    return codes, cardinality


def _distinct_rows(codes, cardinality, columns):
    """Representative rows and inverse map of the distinct rows of ``codes[:, columns]``."""
    key = np.zeros(codes.shape[0], dtype=np.int64)
    key_range = 1
    for j in columns:
        n_values = int(cardinality[j])
        if key_range * n_values >= 2**62:
            # Renumber the keys compactly before they would overflow int64.
            _, key = np.unique(key, return_inverse=True)
            key_range = int(key.max()) + 1
        key = key * n_values + codes[:, j]
        key_range *= n_values
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


class MarginalGame:
    """Values ``v(S; x)`` of the marginal game for coalitions of players.

    Parameters
    ----------
    estimator : fitted estimator
    response : ScoreReader
        How to read one score per row from the model.
    pool : RowPool
    players : list of ndarray of int
        Columns (positions in the model's input) of each player.
    empty_value : float
        ``v({})``: the mean score over the background.
    full_value : ndarray of shape (n_eval,)
        ``v(N) = f(x)``.
    dedup : bool
        Evaluate each coalition on the distinct rows of ``X_S`` only (exact).
    """

    def __init__(self, estimator, response, pool, players, empty_value, full_value, *, dedup=True):
        self.estimator = estimator
        self.response = response
        self.pool = pool
        self.players = players
        self.empty_value = empty_value
        self.full_value = full_value
        self.dedup = dedup
        self.codes, self.cardinality = factorize_columns(pool) if dedup else (None, None)

    def values(self, player_masks):
        """Game values of each coalition, given as boolean masks over players.

        Returns an ndarray of shape (n_coalitions, n_eval).
        """
        n_eval = self.pool.n_eval
        out = np.empty((len(player_masks), n_eval))
        pending = []  # (coalition index, eval rows, column mask, inverse)
        for c, player_mask in enumerate(player_masks):
            if not player_mask.any():
                out[c] = self.empty_value
                continue
            if player_mask.all():
                out[c] = self.full_value
                continue
            columns = np.concatenate([self.players[i] for i in np.flatnonzero(player_mask)])
            column_mask = np.zeros(self.pool.n_features, dtype=bool)
            column_mask[columns] = True
            if self.dedup:
                rows, inverse = _distinct_rows(self.codes, self.cardinality, np.sort(columns))
            else:
                rows, inverse = np.arange(n_eval), None
            pending.append((c, rows, column_mask, inverse))
        for c, distinct_values in self._evaluate(pending):
            _, _, _, inverse = pending[c]
            out[pending[c][0]] = distinct_values if inverse is None else distinct_values[inverse]
        return out

    def _evaluate(self, pending):
        """Yield ``(position in pending, values on its distinct rows)``, packing model calls."""
        n_background = self.pool.n_background
        max_rows = max(
            n_background, min(_MAX_HYBRID_ROWS, _MAX_HYBRID_CELLS // max(self.pool.n_features, 1))
        )
        rows_per_block = max(1, max_rows // n_background)
        # Split each coalition's rows into blocks, then pack blocks into calls.
        blocks = [
            (p, rows[start : start + rows_per_block], mask)
            for p, (_, rows, mask, _) in enumerate(pending)
            for start in range(0, len(rows), rows_per_block)
        ]
        results = {p: [] for p in range(len(pending))}
        call = []
        call_rows = 0
        for block in blocks:
            if call and call_rows + len(block[1]) * n_background > max_rows:
                self._predict(call, results)
                call, call_rows = [], 0
            call.append(block)
            call_rows += len(block[1]) * n_background
        if call:
            self._predict(call, results)
        for p, parts in results.items():
            yield p, np.concatenate(parts)

    def _predict(self, call, results):
        hybrid = self.pool.hybrids([(rows, mask) for _, rows, mask in call])
        scores = self.response(self.estimator, hybrid)
        n_background = self.pool.n_background
        start = 0
        for p, rows, _ in call:
            stop = start + len(rows) * n_background
            # v(S; x) averages over the background (paper eq. 4.3).
            results[p].append(scores[start:stop].reshape(len(rows), n_background).mean(axis=1))
            start = stop
