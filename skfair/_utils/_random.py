"""Per-row random numbers: reproducible, keyed on a row's position or on its content.

skfair's randomised outputs (the repairs' tie-breaking and partial repair, the group
thresholds' randomised decisions) draw their numbers here, as scikit-learn's estimators draw
theirs from ``sklearn.utils.random``. Every number is a function of one seed (drawn from
``random_state`` at fit by :func:`draw_seed`) and of what identifies the row, never of a
generator's state, so that the same call always returns the same numbers and a row's number
does not depend on how the data are split into batches:

- :class:`RowRandom` keys on the row's position (the repairs, whose rows are indexed);
- :func:`row_keys` hashes the row's values (the group thresholds, which decide new rows that
  have no position), :func:`occurrence_index` numbers identical rows inside a batch,
  :func:`row_uniforms` turns both into uniform numbers and :func:`row_decisions` into
  Bernoulli decisions;
- :func:`systematic_decisions` draws many Bernoulli decisions at once with counts that are
  the expected ones rounded, one row at most away;
- :func:`draw_choices` draws one of several options per row (a positive decision or not, a
  tie-breaking rule among several) from either of the two, as ``sampling`` says.

The mixing function is SplitMix64's output function (Steele, Lea & Flood 2014), a bijection
of 64-bit integers that passes BigCrush as a counter-based generator.

References
----------
Steele, G. L., Lea, D. and Flood, C. H. (2014). Fast splittable pseudorandom number
generators. OOPSLA '14, 453-472.

Madow, W. G. and Madow, L. H. (1944). On the theory of systematic sampling, I. The Annals of
Mathematical Statistics 15(1), 1-24.
"""

from __future__ import annotations

import functools
import hashlib
from numbers import Integral, Real

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state as _sklearn_check_random_state

from skfair._utils._groups import column_codes, is_missing_value

# SplitMix64: the increment of the counter and the output mix.
GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
# One bit pattern for every NaN, so that NaN payloads do not make rows differ.
_NAN_BITS = np.array([np.nan]).view(np.uint64)[0]
# When a score keys the random draw, its low mantissa bits are dropped first, so that last-bit
# differences of the model's arithmetic between batch sizes do not change a decision.
_SCORE_KEY_MASK = np.uint64(~((1 << 20) - 1) & 0xFFFFFFFFFFFFFFFF)


def splitmix64(state):
    """SplitMix64's output function: a bijective 64-bit mix of each uint64 of ``state``."""
    with np.errstate(over="ignore"):
        state = state ^ (state >> np.uint64(30))
        state = state * _MIX_1
        state = state ^ (state >> np.uint64(27))
        state = state * _MIX_2
        return state ^ (state >> np.uint64(31))


def mix64(values):
    """A 64-bit hash of each uint64 (SplitMix64's step, then its output function)."""
    with np.errstate(over="ignore"):
        return splitmix64(np.asarray(values, dtype=np.uint64) + GOLDEN_GAMMA)


def to_unit_interval(bits):
    """Uniform numbers in [0, 1) from the 53 high bits of 64-bit integers."""
    return (bits >> np.uint64(11)).astype(np.float64) * 2.0**-53


def check_random_state(random_state):
    """scikit-learn's ``check_random_state``, for a numpy ``Generator`` too.

    A Generator gives the ``RandomState`` interface over its own bit generator: the draws
    advance the Generator, as they advance a RandomState instance passed in, and every
    caller keeps the legacy methods (``randint``, ``random_sample``) that scikit-learn's
    conventions use.
    """
    if isinstance(random_state, np.random.Generator):
        return np.random.RandomState(random_state.bit_generator)
    return _sklearn_check_random_state(random_state)


def check_generator(random_state):
    """A numpy ``Generator`` from ``random_state``, for the code that draws with its methods.

    None, an int or a seed sequence give ``np.random.default_rng(random_state)``; a Generator
    is returned as it is; a RandomState gives a Generator over its own bit generator, so its
    draws advance the RandomState passed in.
    """
    if isinstance(random_state, np.random.RandomState):
        return np.random.Generator(random_state._bit_generator)
    return np.random.default_rng(random_state)


def draw_seed(random_state):
    """One 63-bit seed from ``random_state``: an int gives always the same seed, None fresh
    entropy, a RandomState or a Generator the next number of its stream."""
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(np.iinfo(np.int64).max))
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        return _seed_of_int(int(random_state))
    return int(check_random_state(random_state).randint(np.iinfo(np.int64).max))


@functools.lru_cache(maxsize=256)
def _seed_of_int(random_state):
    """The seed an int gives (seeding a RandomState takes longer than a small fit)."""
    return int(check_random_state(random_state).randint(np.iinfo(np.int64).max))


class RowRandom:
    """Uniform random numbers keyed on a seed, a stream and each row's global position.

    ``uniform(*stream)`` returns one draw in [0, 1) per row: the SplitMix64 generator's
    output at the row's position in a sequence whose start is derived from
    ``(seed, *stream)``. A row's draw therefore does not depend on the other rows of the
    batch, on their order or on how the data are split into blocks, and the same call always
    returns the same numbers. ``stream`` names what the numbers are for (a purpose, a column,
    a step), so that different uses get independent numbers.
    """

    def __init__(self, seed, rows):
        self.seed = seed
        self.rows = rows

    def __getitem__(self, index):
        """The draws of a subset of the rows."""
        return RowRandom(self.seed, self.rows[index])

    def __len__(self):
        return self.rows.shape[0]

    def uniform(self, *stream):
        start = _stream_start(self.seed, stream)
        with np.errstate(over="ignore"):
            state = (self.rows.astype(np.uint64) + np.uint64(1)) * GOLDEN_GAMMA + start
        return to_unit_interval(splitmix64(state))


@functools.lru_cache(maxsize=1024)
def _stream_start(seed, stream):
    """Where the counter of ``(seed, *stream)`` starts: a SeedSequence takes longer to make
    than a few thousand draws, and a repair draws one stream per column at every call."""
    return np.random.SeedSequence([seed, *stream]).generate_state(1, np.uint64)[0]


# --------------------------------------------------------------------------------------------
# rows keyed on their content


def _number_bits(values):
    """The float64 bits of numbers, with -0.0 as 0.0 and one pattern for every NaN."""
    values = np.asarray(values, dtype=np.float64) + 0.0  # a new array; -0.0 -> 0.0
    bits = values.view(np.uint64)
    missing = np.isnan(values)
    if missing.any():
        bits[missing] = _NAN_BITS
    return bits


def _value_bits(value):
    """The 64-bit hash of one value of a non-numeric column.

    Numbers (bool, int, float, numpy scalars) hash as their float64 value, so that an object
    column holding 1 matches a numeric column holding 1.0; missing values (None, NaN, pd.NA,
    NaT) as NaN; anything else by its type and text, so that 1 and "1" differ.
    """
    if is_missing_value(value):
        return _NAN_BITS
    if isinstance(value, Real) and not isinstance(value, str):
        try:
            return _number_bits([float(value)])[0]
        except OverflowError:  # an int beyond float64: its text keys it
            pass
    text = f"{type(value).__name__}:{value}".encode("utf-8", "surrogatepass")
    return np.uint64(int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little"))


def column_bits(column):
    """A 64-bit code of each value of one column that depends on the value only.

    Numeric columns (bool, integer, float, of any width or library) are read as float64
    numbers; other columns (strings, categoricals, objects) hash each distinct value once.
    """
    column = np.asarray(column)
    if column.dtype.kind in "biuf":
        return _number_bits(column)
    n_values, codes = column_codes(column.astype(object))
    _, first = np.unique(codes, return_index=True)
    table = np.array([_value_bits(value) for value in column[first].tolist()], dtype=np.uint64)
    return table[codes] if n_values else np.zeros(0, dtype=np.uint64)


def _columns(X):
    """The columns of a DataFrame (of any library), an array or a list of rows."""
    if hasattr(X, "iloc") and hasattr(X, "columns"):
        return [_frame_column(X.iloc[:, j]) for j in range(X.shape[1])]
    if hasattr(X, "columns") and hasattr(X, "get_column"):  # polars
        return [X.get_column(name).to_numpy() for name in X.columns]
    array = np.asarray(X)
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2:
        raise TypeError(f"rows of a {array.ndim}-D input cannot be hashed")
    return [array[:, j] for j in range(array.shape[1])]


def _frame_column(series):
    """A pandas column as numpy: numbers as float64 (missing as NaN), the rest as objects."""
    import pandas as pd

    dtype = series.dtype
    numeric = pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype)
    if numeric and not isinstance(dtype, pd.CategoricalDtype):
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    return series.to_numpy(dtype=object)


def row_keys(X, scores):
    """A 64-bit key per row, a function of the row's values only.

    The key combines, over the columns, a hash of (column position, value); it does not depend
    on the columns' dtypes (an integer 1 and a float 1.0 give the same key) nor on the
    container (numpy, pandas, polars, scipy sparse: zeros are left out, so that a sparse row
    and its dense copy agree). Column names are not part of the key. Inputs whose rows cannot
    be read (e.g. a list of dicts for a vectoriser) fall back to the row's score, of which the
    32 leading mantissa bits are kept.
    """
    if sparse.issparse(X):
        return _sparse_row_keys(X)
    if isinstance(X, np.ndarray) and X.ndim == 2 and X.dtype.kind in "biuf":
        return _numeric_row_keys(X)
    try:
        columns = _columns(X)
        parts = [column_bits(column) for column in columns]
    except (TypeError, ValueError):
        return (np.asarray(scores, dtype=np.float64) + 0.0).view(np.uint64) & _SCORE_KEY_MASK
    keys = np.zeros(np.asarray(scores).shape[0], dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j, bits in enumerate(parts):  # a loop over columns, each step vectorised over rows
            keys += _terms(bits, _column_key(j))
    return mix64(keys)


def _column_key(j):
    with np.errstate(over="ignore"):
        return mix64(np.asarray(j, dtype=np.uint64) * GOLDEN_GAMMA)


def _terms(bits, column_keys):
    """Each value's share of its row's key; 0 for a zero, so that zeros are like absent."""
    terms = mix64(bits ^ column_keys)
    terms[bits == 0] = 0
    return terms


# Rows of a numeric array keyed at once, by blocks of this many values.
_BLOCK_VALUES = 1 << 20


def _numeric_row_keys(X):
    """:func:`row_keys` of a numeric 2-D array, a block of rows at a time."""
    n_rows, n_columns = X.shape
    keys = np.zeros(n_rows, dtype=np.uint64)
    column_keys = _column_key(np.arange(n_columns))
    step = max(1, _BLOCK_VALUES // max(n_columns, 1))
    for start in range(0, n_rows, step):
        bits = _number_bits(X[start : start + step])
        keys[start : start + step] = _terms(bits, column_keys).sum(axis=1, dtype=np.uint64)
    return mix64(keys)


def _sparse_row_keys(X):
    csr = sparse.csr_array(X, dtype=np.float64, copy=True)
    csr.sum_duplicates()
    csr.eliminate_zeros()
    terms = _terms(_number_bits(csr.data), _column_key(csr.indices))
    keys = np.zeros(csr.shape[0], dtype=np.uint64)
    counts = np.diff(csr.indptr)
    nonempty = counts > 0
    if csr.nnz:
        with np.errstate(over="ignore"):
            keys[nonempty] = np.add.reduceat(terms, csr.indptr[:-1][nonempty])
    return mix64(keys)


def occurrence_index(keys):
    """For each row, how many earlier rows of the batch have the same key (0, 1, 2, ...)."""
    keys = np.asarray(keys)
    occurrence = np.zeros(keys.size, dtype=np.uint64)
    if keys.size < 2:
        return occurrence
    order = np.argsort(keys)
    sorted_keys = keys[order]
    same = sorted_keys[1:] == sorted_keys[:-1]
    if not same.any():  # the usual case: every row differs
        return occurrence
    # Only the repeated keys need numbering, in the rows' order.
    repeated = np.zeros(keys.size, dtype=bool)
    repeated[1:] |= same
    repeated[:-1] |= same
    rows = order[repeated]
    rows = rows[np.lexsort((rows, keys[rows]))]
    run_keys = keys[rows]
    starts = np.r_[True, run_keys[1:] != run_keys[:-1]]
    run_start = np.maximum.accumulate(np.where(starts, np.arange(rows.size), 0))
    occurrence[rows] = np.arange(rows.size) - run_start
    return occurrence


def _keyed(keys, codes, seed):
    """Row keys mixed with the group code and the seed; with a sequence of seeds, one row of
    shape (n_rows,) per seed."""
    seed_key = mix64(np.asarray(seed, dtype=np.uint64).reshape(-1, 1))
    keyed = mix64(keys ^ mix64(np.asarray(codes, dtype=np.uint64) ^ seed_key))
    return keyed if np.ndim(seed) else keyed[0]


def row_uniforms(keys, codes, seed):
    """A uniform number in [0, 1) per row that identical rows of a batch do not share.

    A function of (row key, group code, the row's occurrence among the rows of the batch with
    the same key and group, seed): a row alone gets the same number in every call, and a batch
    that holds a row ``m`` times gives its copies ``m`` independent numbers, the same ones in
    any order of the batch.
    """
    keyed = _keyed(keys, codes, seed)
    with np.errstate(over="ignore"):
        return to_unit_interval(mix64(keyed + occurrence_index(keyed) * GOLDEN_GAMMA))


def row_decisions(keys, codes, probability, seed):
    """Bernoulli decisions keyed on each row, systematic among identical rows.

    A row's decision is a function of its key, its group, its probability ``p``, the seed and
    its occurrence ``k`` among the rows of the batch with the same key and group: with ``u``
    the row's uniform number (of key, group and seed), the ``k``-th copy is positive when
    ``floor(u + (k + 1) p) > floor(u + k p)``. A row alone is positive when ``u >= 1 - p``,
    with probability ``p``; so is every copy, and the ``m`` copies of a row hold the expected
    number ``m p`` of positives rounded down or up (systematic sampling among them) instead
    of sharing one draw or varying like ``m`` independent ones. The decisions of a batch, per
    distinct row, do not depend on the order of the rows.
    """
    keyed = _keyed(keys, codes, seed)
    return _copy_decisions(to_unit_interval(mix64(keyed)), occurrence_index(keyed), probability)


def _copy_decisions(uniform, occurrence, probability):
    """:func:`row_decisions`' rule: the ``k``-th copy of a row of number ``u`` is positive
    when ``floor(u + (k + 1) p) > floor(u + k p)``."""
    occurrence = occurrence.astype(np.float64)
    return np.floor(uniform + (occurrence + 1) * probability) > np.floor(
        uniform + occurrence * probability
    )


def batch_offset(uniforms, seed):
    """One number in [0, 1) for a batch: a hash of the seed and of the multiset of its rows'
    numbers, so that it does not depend on the order of the rows."""
    bits = (np.asarray(uniforms) * 2.0**53).astype(np.uint64)
    with np.errstate(over="ignore"):
        total = mix64(bits).sum(dtype=np.uint64)
    return float(to_unit_interval(mix64(np.array([total ^ mix64(np.uint64(seed))]))[0]))


def systematic_decisions(probability, strata, order, offset):
    """Bernoulli decisions drawn by systematic sampling within each stratum.

    Within a stratum, the rows are taken in ``order`` and row ``i`` is
    positive when ``floor(offset + P_i) > floor(offset + P_{i-1})``, with ``P_i`` the running
    sum of ``probability`` (Madow & Madow 1944). For ``offset`` uniform on [0, 1), every row is
    positive with its own probability, and the number of positives of a stratum is
    ``floor(offset + sum)``: the expected number rounded down or up, with an error in
    ``(offset - 1, offset]`` shared by every stratum. Rows of probability 0 or 1 are decided
    without drawing.

    Parameters
    ----------
    probability : ndarray of shape (n_rows,)
        Probabilities in [0, 1].
    strata : ndarray of int of shape (n_rows,)
        Stratum of each row.
    order : sequence of ndarray of shape (n_rows,)
        Sort keys of the rows within a stratum, as for :func:`numpy.lexsort` (the last one
        primary; ties of all keys keep the rows' order).
    offset : float
        In [0, 1).

    Returns
    -------
    decisions : ndarray of bool of shape (n_rows,)
    """
    decisions = probability >= 1.0
    drawn = np.flatnonzero((probability > 0.0) & (probability < 1.0))
    if drawn.size == 0:
        return decisions
    # successive stable sorts, least significant key first (faster than np.lexsort here);
    # the strata last, as small integers (radix sort)
    for key in order:
        drawn = drawn[np.argsort(key[drawn], kind="stable")]
    drawn = drawn[np.argsort(_narrow(strata[drawn]), kind="stable")]
    p, stratum = probability[drawn], strata[drawn]
    running = np.cumsum(p)
    first = np.r_[True, stratum[1:] != stratum[:-1]]
    # The running sum restarts at each stratum (the sums before it are increasing).
    running -= np.maximum.accumulate(np.where(first, running - p, -np.inf))
    # Row i's "before" is row i-1's running sum itself (0 at a stratum's start), so that the
    # counts telescope exactly to floor(offset + the stratum's sum) despite rounding.
    before = np.r_[0.0, running[:-1]]
    before[first] = 0.0
    decisions[drawn] = np.floor(offset + running) > np.floor(offset + before)
    return decisions


SAMPLINGS = ("row", "batch")


def draw_choices(shares, keys, strata, seed, *, sampling, order=()):
    """The option each row takes, option ``r`` with probability ``shares[i, r]``.

    The options are drawn one at a time from the last: a row not given a later option takes
    option ``r`` with its probability given that (``shares[i, r]`` over the row's remaining
    mass), option 0 being what is left. Each step is one Bernoulli decision per remaining
    row, drawn as ``sampling`` says:

    - ``"row"``: :func:`row_decisions` (a function of the row's key, its stratum, the seed
      and its occurrence among identical rows): a row's option does not depend on the
      other rows of the batch, and the copies of a row take the last option the expected
      number of times, rounded;
    - ``"batch"``: :func:`systematic_decisions` within each stratum, the rows taken in the
      order of ``order`` (then of their :func:`row_uniforms` number), with an offset drawn
      by :func:`batch_offset`: the number of rows of a stratum taking the last option is its
      expected number rounded, and each earlier option's count is within one row of its
      expectation given the later ones.

    With two options this is exactly one Bernoulli decision of probability ``shares[:, 1]``
    (:func:`row_decisions` or :func:`systematic_decisions` with ``seed`` itself); later
    steps use seeds derived from ``seed``.

    Parameters
    ----------
    shares : ndarray of shape (n_rows, n_options)
        Each row's probabilities of the options (rows summing to 1).
    keys : ndarray of uint64 of shape (n_rows,)
        The rows' :func:`row_keys`.
    strata : ndarray of int of shape (n_rows,)
        Stratum (group) of each row; it keys the draws too.
    seed : int
        From :func:`draw_seed`.
    sampling : {"row", "batch"}
    order : sequence of ndarray of shape (n_rows,), default=()
        With ``"batch"``, sort keys of the rows within a stratum, as for
        :func:`numpy.lexsort` (the last one primary), before their random numbers.

    Returns
    -------
    choices : ndarray of int of shape (n_rows,)
        Index of each row's option.
    """
    shares = np.asarray(shares, dtype=np.float64)
    n_rows, n_options = shares.shape
    choices = np.zeros(n_rows, dtype=np.intp)
    rows = np.arange(n_rows)
    if sampling == "batch":
        uniforms = row_uniforms(keys, strata, seed)
    remaining = np.ones(n_rows)  # each row's mass of the options not yet drawn
    for option in range(n_options - 1, 0, -1):
        # the first step (the last option) with the seed itself, the later ones derived
        step_seed = seed if option == n_options - 1 else _step_seed(seed, option)
        with np.errstate(divide="ignore", invalid="ignore"):
            probability = np.clip(
                np.where(remaining[rows] > 0, shares[rows, option] / remaining[rows], 0.0),
                0.0,
                1.0,
            )
        if sampling == "row":
            taken = row_decisions(keys[rows], strata[rows], probability, step_seed)
        else:
            offset = batch_offset(uniforms, step_seed)
            sort_keys = (uniforms[rows], *(key[rows] for key in order))
            taken = systematic_decisions(probability, strata[rows], sort_keys, offset)
        choices[rows[taken]] = option
        remaining = remaining - shares[:, option]
        rows = rows[~taken]
    return choices


def draw_choices_by_seed(shares, keys, seeds):
    """:func:`draw_choices` of rows of one stratum with ``sampling="row"``, for each of
    ``seeds`` in turn: a generator of blocks of shape (n_seeds_in_block, n_rows), whose rows
    are ``draw_choices(shares, keys, zeros, seed, sampling="row")`` for the block's seeds in
    order.

    With two options every seed's draw is one :func:`row_decisions`, computed for a block of
    seeds at once: the rows' occurrences among identical rows are the same for every seed
    (mixing the keys with one constant and a bijective hash keeps equal keys equal and
    distinct ones distinct), so they are counted once. The first seed is drawn alone (a
    caller that stops at the first draw pays for one).
    """
    shares = np.asarray(shares, dtype=np.float64)
    n_rows, n_options = shares.shape
    seeds = list(seeds)
    if n_options != 2:
        strata = np.zeros(n_rows, dtype=np.intp)
        for seed in seeds:
            yield draw_choices(shares, keys, strata, seed, sampling="row")[None]
        return
    # draw_choices' probability of option 1, the remaining mass being 1
    probability = np.clip(shares[:, 1], 0.0, 1.0)
    occurrence = occurrence_index(keys)
    block = max(1, _BLOCK_DRAWS // max(n_rows, 1))
    start = 0
    while start < len(seeds):
        stop = start + (1 if start == 0 else block)
        uniform = to_unit_interval(mix64(_keyed(keys, 0, seeds[start:stop])))
        yield _copy_decisions(uniform, occurrence, probability).astype(np.intp)
        start = stop


# Row draws made at once by draw_choices_by_seed (a block of seeds of 8 MB per array).
_BLOCK_DRAWS = 1 << 20


def derived_seeds(seed, indices):
    """Seeds (63-bit integers) derived from ``seed`` for many ``indices`` at once, by the
    draws' hash (a :class:`numpy.random.SeedSequence` per index costs about 16 us)."""
    indices = np.asarray(indices, dtype=np.uint64)
    mixed = mix64(mix64(np.array([seed], dtype=np.uint64)) ^ mix64(indices)) >> np.uint64(1)
    return [int(value) for value in mixed]


def _step_seed(seed, step):
    """A seed for step ``step`` of a draw, independent of ``seed``'s own draws."""
    return int(mix64(np.array([seed], dtype=np.uint64) ^ mix64(np.uint64(step)))[0] >> 1)


def _narrow(codes):
    """Non-negative integer codes in the narrowest unsigned type (numpy radix-sorts those)."""
    top = int(codes.max()) if codes.size else 0
    return codes.astype(
        next(t for t in (np.uint8, np.uint16, np.uint32, np.uint64) if top <= np.iinfo(t).max)
    )
