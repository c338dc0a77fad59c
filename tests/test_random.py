"""Per-row random numbers: uniformity, keys that depend on the values only, occurrence
indices and systematic sampling against brute-force counts."""

import numpy as np
import pandas as pd
import polars
import pytest
from scipy import sparse
from scipy.stats import kstest

from skfair._utils._random import (
    RowRandom,
    batch_offset,
    draw_choices,
    draw_choices_by_seed,
    draw_seed,
    occurrence_index,
    row_decisions,
    row_keys,
    row_uniforms,
    systematic_decisions,
)


def test_row_draws_are_uniform_independent_and_keyed_on_the_row():
    rows = np.arange(200_000)
    draws = RowRandom(draw_seed(0), rows)
    first, second = draws.uniform(0, 0), draws.uniform(1, 0)
    assert kstest(first, "uniform").pvalue > 1e-3
    assert kstest(second, "uniform").pvalue > 1e-3
    assert abs(np.corrcoef(first, second)[0, 1]) < 0.01  # two streams
    assert abs(np.corrcoef(first[1:], first[:-1])[0, 1]) < 0.01  # neighbouring rows
    # a row's draw is the same whatever the batch and its order
    subset = np.array([199_999, 5, 77_000])
    np.testing.assert_array_equal(draws[subset].uniform(0, 0), first[subset])
    assert draw_seed(0) == draw_seed(0)
    assert draw_seed(None) != draw_seed(None)
    generator = np.random.default_rng(3)
    assert draw_seed(generator) != draw_seed(generator)  # a Generator's stream moves on


def mixed_frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "count": rng.integers(0, 5, n),
            "amount": np.round(rng.normal(size=n), 1),
            "flag": rng.random(n) < 0.5,
            "city": rng.choice(["paris", "lyon", "nice"], n),
        }
    )


def test_keys_depend_on_the_values_not_on_dtypes_or_containers():
    frame = mixed_frame()
    scores = np.zeros(len(frame))
    keys = row_keys(frame, scores)
    as_float = frame.astype({"count": "float32", "flag": "int8"})
    np.testing.assert_array_equal(row_keys(as_float, scores), keys)
    as_nullable = frame.astype({"count": "Int64", "city": "category"})
    np.testing.assert_array_equal(row_keys(as_nullable, scores), keys)
    np.testing.assert_array_equal(row_keys(frame.to_numpy(dtype=object), scores), keys)
    np.testing.assert_array_equal(row_keys(polars.from_pandas(frame), scores), keys)
    numeric = frame[["count", "amount"]]
    dense = numeric.to_numpy()
    np.testing.assert_array_equal(row_keys(numeric, scores), row_keys(dense, scores))
    np.testing.assert_array_equal(
        row_keys(sparse.csr_matrix(dense), scores), row_keys(dense, scores)
    )
    np.testing.assert_array_equal(
        row_keys(-0.0 * np.ones((3, 1)), scores[:3]), row_keys(np.zeros((3, 1)), scores[:3])
    )


def test_equal_keys_exactly_for_equal_rows():
    frame = mixed_frame(2000)
    keys = row_keys(frame, np.zeros(len(frame)))
    rows = [tuple(row) for row in frame.itertuples(index=False)]
    distinct_rows = len(set(rows))
    assert len(np.unique(keys)) == distinct_rows
    first = {}
    for row, key in zip(rows, keys):
        assert first.setdefault(row, key) == key
    # a value and its text differ; so do the same values in other columns
    assert row_keys(np.array([[1]], dtype=object), [0.0]) != row_keys(
        np.array([["1"]], dtype=object), [0.0]
    )
    assert row_keys(np.array([[1.0, 2.0]]), [0.0]) != row_keys(np.array([[2.0, 1.0]]), [0.0])


def test_unreadable_rows_fall_back_to_the_score():
    texts = [{"a": 1}, {"a": 2}, {"a": 1}]
    keys = row_keys(texts, np.array([0.25, 0.5, 0.25]))
    assert keys[0] == keys[2] != keys[1]


def test_occurrence_index_against_a_count():
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 20, 500).astype(np.uint64)
    seen = {}
    expected = []
    for key in keys.tolist():
        expected.append(seen.get(key, 0))
        seen[key] = seen.get(key, 0) + 1
    np.testing.assert_array_equal(occurrence_index(keys), expected)


def test_identical_rows_draw_independently_and_order_does_not_matter():
    rng = np.random.default_rng(1)
    keys = np.repeat(rng.integers(0, 2**63, 30).astype(np.uint64), 200)
    codes = np.zeros(keys.size, dtype=np.intp)
    uniforms = row_uniforms(keys, codes, 7)
    assert len(np.unique(uniforms)) == keys.size
    assert kstest(uniforms, "uniform").pvalue > 1e-3
    # a row alone gets its first copy's number
    np.testing.assert_array_equal(row_uniforms(keys[:1], codes[:1], 7), uniforms[:1])
    # a permuted batch gives each distinct row the same multiset of numbers
    order = rng.permutation(keys.size)
    permuted = row_uniforms(keys[order], codes[order], 7)
    for key in np.unique(keys):
        np.testing.assert_array_equal(
            np.sort(permuted[keys[order] == key]), np.sort(uniforms[keys == key])
        )
    assert batch_offset(permuted, 7) == batch_offset(uniforms, 7)
    assert batch_offset(uniforms[1:], 7) != batch_offset(uniforms, 7)
    # the group is part of the key
    assert (row_uniforms(keys, codes + 1, 7) != uniforms).all()


def _systematic_by_loop(probability, strata, order, offset):
    decisions = np.asarray(probability) >= 1
    for stratum in np.unique(strata):
        rows = [i for i in np.argsort(order, kind="stable") if strata[i] == stratum]
        running = 0.0
        for i in rows:
            if 0 < probability[i] < 1:
                before = running
                running += probability[i]
                decisions[i] = np.floor(offset + running) > np.floor(offset + before)
    return decisions


@pytest.mark.parametrize("seed", range(5))
def test_systematic_sampling_matches_the_definition_and_rounds_the_counts(seed):
    rng = np.random.default_rng(seed)
    n = 400
    probability = rng.choice([0.0, 1.0, 0.3, 0.75, 0.05], n) * (rng.random(n) < 0.9)
    probability[rng.random(n) < 0.2] = rng.random()
    strata = rng.integers(0, 4, n)
    order = rng.permutation(n)
    offset = rng.random()
    decisions = systematic_decisions(probability, strata, [order], offset)
    np.testing.assert_array_equal(
        decisions, _systematic_by_loop(probability, strata, order, offset)
    )
    for stratum in range(4):
        in_stratum = strata == stratum
        expected = probability[in_stratum].sum()
        drawn = (probability > 0) & (probability < 1) & in_stratum
        certain = (probability[in_stratum] >= 1).sum()
        count = decisions[in_stratum].sum()
        assert count == certain + np.floor(offset + probability[drawn].sum() + 1e-9)
        assert expected - 1 < count < expected + 1


def test_systematic_sampling_gives_each_row_its_probability():
    # Averaged over the offset (a fine grid standing for a uniform draw), each row is
    # positive with exactly its own probability.
    rng = np.random.default_rng(3)
    probability = rng.random(60)
    strata = rng.integers(0, 3, 60)
    order = rng.permutation(60)
    offsets = (np.arange(4000) + 0.5) / 4000
    frequency = np.mean(
        [systematic_decisions(probability, strata, [order], u) for u in offsets], axis=0
    )
    np.testing.assert_allclose(frequency, probability, atol=1 / 4000 + 1e-12)


def test_row_decisions_round_the_copies_and_keep_each_rows_probability():
    rng = np.random.default_rng(4)
    distinct = rng.integers(0, 2**63, 50).astype(np.uint64)
    copies = rng.integers(1, 30, 50)
    keys = np.repeat(distinct, copies)
    codes = np.zeros(keys.size, dtype=np.intp)
    probability = np.repeat(rng.random(50), copies)
    frequency = np.zeros(keys.size)
    for seed in range(400):
        decisions = row_decisions(keys, codes, probability, seed)
        for key, m, p in zip(distinct, copies, probability[np.cumsum(copies) - 1]):
            count = decisions[keys == key].sum()
            assert np.floor(m * p) <= count <= np.ceil(m * p)
        frequency += decisions
    # every copy is positive with its own probability (400 seeds: 5 standard errors)
    assert (np.abs(frequency / 400 - probability) <= 5 * np.sqrt(0.25 / 400)).all()
    # a row alone: its first copy's decision; a permuted batch: the same counts per row
    first = np.r_[0, np.cumsum(copies)[:-1]]
    decisions = row_decisions(keys, codes, probability, 9)
    alone = [row_decisions(keys[i : i + 1], codes[:1], probability[i : i + 1], 9)[0] for i in first]
    np.testing.assert_array_equal(alone, decisions[first])
    order = rng.permutation(keys.size)
    shuffled = row_decisions(keys[order], codes[order], probability[order], 9)
    for key in distinct:
        assert shuffled[keys[order] == key].sum() == decisions[keys == key].sum()


def test_missing_values_key_alike_whatever_their_kind():
    column = np.array([None, np.nan, pd.NA, pd.NaT, "x", 1, 1.0, True], dtype=object)
    bits = row_keys(column[:, None], np.zeros(len(column)))
    assert len(set(bits[:4].tolist())) == 1  # every kind of missing value is one value
    assert bits[5] == bits[6] == bits[7]  # 1, 1.0 and True are the number 1
    assert bits[4] != bits[0] and bits[4] != bits[5]


@pytest.mark.parametrize("sampling", ["row", "batch"])
def test_two_options_are_one_bernoulli_decision_of_the_second(sampling):
    # the binary thresholds' draws, through the same function as the multi-class rules'
    rng = np.random.default_rng(5)
    keys = rng.integers(0, 2**63, 300).astype(np.uint64)[rng.integers(0, 200, 300)]
    codes = rng.integers(0, 3, 300)
    probability = rng.random(300)
    score = rng.random(300)
    choices = draw_choices(
        np.c_[1 - probability, probability], keys, codes, 11, sampling=sampling, order=(score,)
    )
    if sampling == "row":
        expected = row_decisions(keys, codes, probability, 11)
    else:
        uniforms = row_uniforms(keys, codes, 11)
        expected = systematic_decisions(
            probability, codes, (uniforms, score), batch_offset(uniforms, 11)
        )
    np.testing.assert_array_equal(choices == 1, expected)


@pytest.mark.parametrize("sampling", ["row", "batch"])
def test_several_options_keep_each_rows_shares(sampling):
    rng = np.random.default_rng(6)
    n, n_options = 90, 4
    keys = rng.integers(0, 2**63, n).astype(np.uint64)
    codes = rng.integers(0, 3, n)
    shares = rng.dirichlet(np.ones(n_options), n)
    shares[:10] = [0.0, 0.0, 1.0, 0.0]  # a certain option
    n_seeds = 800
    frequency = np.zeros((n, n_options))
    for seed in range(n_seeds):
        choices = draw_choices(shares, keys, codes, seed, sampling=sampling)
        frequency[np.arange(n), choices] += 1
    frequency /= n_seeds
    assert (frequency[:10, 2] == 1).all()
    bound = 5 * np.sqrt(shares * (1 - shares) / n_seeds) + 1e-12
    assert (np.abs(frequency - shares) <= bound).all()


def test_batch_choices_count_each_option_within_a_row_per_step():
    # rows of a stratum sharing their shares (a group's tie-breaking rules): each option's
    # count is its expected number rounded, give or take the steps drawn before it
    rng = np.random.default_rng(7)
    n, n_options = 1000, 4
    codes = rng.integers(0, 5, n)
    table = rng.dirichlet(np.ones(n_options), 5)
    shares = table[codes]
    for seed in range(50):
        keys = rng.integers(0, 2**63, n).astype(np.uint64)
        choices = draw_choices(shares, keys, codes, seed, sampling="batch")
        for g in range(5):
            counts = np.bincount(choices[codes == g], minlength=n_options)
            expected = (codes == g).sum() * table[g]
            # the last option within one row; option r within n_options - r rows
            assert (np.abs(counts - expected) < n_options - np.arange(n_options) + 1e-9).all()
            assert abs(counts[-1] - expected[-1]) < 1


@pytest.mark.parametrize("n_options", [2, 3])
def test_draws_for_many_seeds_equal_one_seed_at_a_time(n_options, monkeypatch):
    """draw_choices_by_seed (several seeds at once with two options) equals draw_choices
    called seed by seed, with repeated rows, probabilities 0 and 1, and blocks of seeds that
    do not divide their number."""
    import skfair._utils._random as random_module

    monkeypatch.setattr(random_module, "_BLOCK_DRAWS", 5 * 40)  # blocks of 5 seeds
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, size=(40, 2)).astype(float)  # many identical rows
    shares = rng.dirichlet(np.ones(n_options), size=40)
    shares[:5] = np.eye(n_options)[rng.integers(0, n_options, 5)]  # certain rows
    keys = row_keys(X, shares[:, 0])
    seeds = [draw_seed(seed) for seed in range(23)]
    strata = np.zeros(40, dtype=np.intp)
    got = np.concatenate(list(draw_choices_by_seed(shares, keys, seeds)))
    assert got.shape == (len(seeds), 40)
    for seed, choice in zip(seeds, got):
        np.testing.assert_array_equal(
            choice, draw_choices(shares, keys, strata, seed, sampling="row")
        )

