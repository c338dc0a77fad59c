"""Stability and uncertainty per sample and across groups (Virny's definitions)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from skfair.metrics import (
    aleatoric_uncertainty,
    aleatoric_uncertainty_difference,
    epistemic_uncertainty,
    epistemic_uncertainty_difference,
    label_stability,
    label_stability_difference,
)

# Hand-computed example R1: B = 4 members (columns of the table), 6 samples; samples 0-2 are dis.
R1_PROBA = np.array(
    [
        [0.9, 0.8, 0.7, 0.6],
        [0.6, 0.4, 0.7, 0.3],
        [0.5, 0.2, 0.1, 0.55],
        [0.0, 0.0, 0.0, 0.0],
        [1.0, 0.9, 0.95, 0.99],
        [0.3, 0.35, 0.25, 0.4],
    ]
).T  # member axis first: (n_estimators, n_samples)
R1_Y_TRUE = np.array([1, 0, 1, 0, 1, 0])
R1_GROUPS = np.array(["d", "d", "d", "p", "p", "p"])
R1_LS = [1, 0, 0.5, 1, 1, 1]
R1_ALEATORIC = [0.760791, 0.926121, 0.795925, 0, 0.209046, 0.899397]
R1_EPISTEMIC = [0.050487, 0.073879, 0.126482, 0, 0.033246, 0.010339]


def _virny_labels(proba):
    # Virny's member label 1{p0 < 0.5} = 1{p1 > 0.5}: p = 0.5 counts as 0.
    return (proba > 0.5).astype(int)


def _binary_entropy(p):
    return 0.0 if p in (0.0, 1.0) else -p * math.log2(p) - (1 - p) * math.log2(1 - p)


# --------------------------------------------------------------------------------------------
# R1 reference values


def test_per_sample_values_of_the_example():
    np.testing.assert_allclose(label_stability(_virny_labels(R1_PROBA)), R1_LS, atol=1e-6)
    np.testing.assert_allclose(aleatoric_uncertainty(R1_PROBA), R1_ALEATORIC, atol=1e-6)
    np.testing.assert_allclose(epistemic_uncertainty(R1_PROBA), R1_EPISTEMIC, atol=1e-6)


def test_signed_differences_of_the_example():
    kwargs = dict(sensitive_features=R1_GROUPS, privileged_group="p")
    labels = _virny_labels(R1_PROBA)
    assert label_stability_difference(R1_Y_TRUE, labels, **kwargs) == pytest.approx(-0.5, abs=1e-6)
    assert aleatoric_uncertainty_difference(R1_Y_TRUE, R1_PROBA, **kwargs) == pytest.approx(
        0.458131, abs=1e-6
    )
    assert epistemic_uncertainty_difference(R1_Y_TRUE, R1_PROBA, **kwargs) == pytest.approx(
        0.069088, abs=1e-6
    )
    # Overall uncertainty = aleatoric + epistemic (by hand: 0.527219).
    overall = aleatoric_uncertainty_difference(
        None, R1_PROBA, **kwargs
    ) + epistemic_uncertainty_difference(None, R1_PROBA, **kwargs)
    assert overall == pytest.approx(0.527219, abs=1e-6)


def test_unsigned_differences_are_absolute_values():
    labels = _virny_labels(R1_PROBA)
    assert label_stability_difference(None, labels, sensitive_features=R1_GROUPS) == (
        pytest.approx(0.5, abs=1e-6)
    )
    assert aleatoric_uncertainty_difference(None, R1_PROBA, sensitive_features=R1_GROUPS) == (
        pytest.approx(0.458131, abs=1e-6)
    )
    assert epistemic_uncertainty_difference(None, R1_PROBA, sensitive_features=R1_GROUPS) == (
        pytest.approx(0.069088, abs=1e-6)
    )


def test_three_dimensional_layout_and_argmax_labels():
    # The (B, n, K) layout of BootstrapEnsemble.predict_proba_members gives the same values,
    # and argmax over [p0, p1] breaks the tie of sample 2 (p = 0.5) towards class 0.
    proba = np.stack([1 - R1_PROBA, R1_PROBA], axis=-1)
    np.testing.assert_allclose(aleatoric_uncertainty(proba), R1_ALEATORIC, atol=1e-6)
    np.testing.assert_allclose(epistemic_uncertainty(proba), R1_EPISTEMIC, atol=1e-6)
    np.testing.assert_allclose(label_stability(proba.argmax(axis=2), labels=[0, 1]), R1_LS)


# --------------------------------------------------------------------------------------------
# hand-computed cases


def test_hand_computed_binary():
    # Two members certain of opposite classes: 1 bit of epistemic, no aleatoric uncertainty.
    # Two members at 0.5: 1 bit of aleatoric, no epistemic uncertainty.
    proba = np.array([[0.0, 0.5, 0.9], [1.0, 0.5, 0.9]])
    np.testing.assert_allclose(aleatoric_uncertainty(proba), [0, 1, _binary_entropy(0.9)])
    np.testing.assert_allclose(epistemic_uncertainty(proba), [1, 0, 0], atol=1e-15)


def test_hand_computed_multiclass():
    # Three classes; both members uniform: aleatoric log2(3), epistemic 0.
    # Members one-hot on classes 0 and 1: aleatoric 0, epistemic H(1/2, 1/2, 0) = 1.
    proba = np.array(
        [[[1 / 3, 1 / 3, 1 / 3], [1.0, 0.0, 0.0]], [[1 / 3, 1 / 3, 1 / 3], [0.0, 1.0, 0.0]]]
    )
    np.testing.assert_allclose(aleatoric_uncertainty(proba), [math.log2(3), 0])
    np.testing.assert_allclose(epistemic_uncertainty(proba), [0, 1], atol=1e-15)


def test_label_stability_hand_computed():
    # 4 members: unanimous; 3 against 1; 2 against 2.
    y_pred = np.array([[1, 1, 1], [1, 1, 0], [1, 1, 1], [1, 0, 0]])
    np.testing.assert_allclose(label_stability(y_pred), [1, 0.5, 0])
    # K = 3, votes (2, 1, 1): f_mode = 1/2, LS = (3/2 - 1) / 2 = 1/4; votes (4, 0, 0): 1.
    y_pred = np.array([["a", "c"], ["a", "c"], ["b", "c"], ["c", "c"]])
    np.testing.assert_allclose(label_stability(y_pred, labels=["a", "b", "c"]), [0.25, 1])
    # Unanimous binary votes keep K = 2 (floored), whatever the label.
    np.testing.assert_allclose(label_stability(np.full((3, 2), 7)), [1, 1])


def test_difference_hand_computed_several_groups_and_weights():
    # Per-sample epistemic values: [1, 0, 1, 0, 0, 0] (members certain and opposed, or agreeing).
    proba = np.array([[0.0, 0.3, 1.0, 0.2, 0.7, 0.7], [1.0, 0.3, 0.0, 0.2, 0.7, 0.7]])
    groups = ["a", "a", "b", "b", "c", "c"]
    # Means a = 1/2, b = 1/2, c = 0: largest gap 1/2.
    assert epistemic_uncertainty_difference(None, proba, sensitive_features=groups) == (
        pytest.approx(0.5)
    )
    # Weights (3, 1) in group a: mean 3/4; dis = {a, b} pooled with weights 3,1,1,1: 4/6.
    weights = [3, 1, 1, 1, 1, 1]
    assert epistemic_uncertainty_difference(
        None, proba, sensitive_features=groups, sample_weight=weights
    ) == pytest.approx(0.75)
    assert epistemic_uncertainty_difference(
        None, proba, sensitive_features=groups, privileged_group="c", sample_weight=weights
    ) == pytest.approx(4 / 6)


# --------------------------------------------------------------------------------------------
# agreement with a direct transcription of Virny's formulas


def _virny_oracle(proba_positive):
    """Virny 0.6.0's per-sample formulas, sample by sample in plain Python."""
    stability, aleatoric, epistemic = [], [], []
    for member_p in proba_positive.T:
        n_pos = sum(p > 0.5 for p in member_p)
        n_neg = len(member_p) - n_pos
        stability.append(abs(n_pos - n_neg) / len(member_p))
        mean_entropy = sum(_binary_entropy(p) for p in member_p) / len(member_p)
        aleatoric.append(mean_entropy)
        epistemic.append(_binary_entropy(sum(member_p) / len(member_p)) - mean_entropy)
    return np.array(stability), np.array(aleatoric), np.array(epistemic)


def test_random_agreement_with_virny_formulas():
    rng = np.random.default_rng(0)
    proba = rng.uniform(size=(7, 40))
    proba[:, :5] = np.round(proba[:, :5])  # certain members (0 log 0)
    proba[0, 5:10] = 0.5  # ties
    stability, aleatoric, epistemic = _virny_oracle(proba)
    np.testing.assert_allclose(label_stability(_virny_labels(proba)), stability, atol=1e-12)
    np.testing.assert_allclose(aleatoric_uncertainty(proba), aleatoric, atol=1e-12)
    np.testing.assert_allclose(epistemic_uncertainty(proba), epistemic, atol=1e-12)


def test_identical_members_are_stable_with_no_epistemic_uncertainty():
    rng = np.random.default_rng(1)
    one_member = rng.dirichlet(np.ones(4), size=30)
    proba = np.broadcast_to(one_member, (5, 30, 4))
    np.testing.assert_array_equal(label_stability(proba.argmax(axis=2), labels=range(4)), 1.0)
    np.testing.assert_allclose(epistemic_uncertainty(proba), 0, atol=1e-12)


# --------------------------------------------------------------------------------------------
# properties


unit_floats = st.floats(0, 1)
member_proba = st.tuples(st.integers(2, 6), st.integers(1, 8), st.integers(2, 4)).flatmap(
    lambda shape: arrays(np.float64, shape, elements=unit_floats)
)


@settings(max_examples=60, deadline=None)
@given(member_proba)
def test_bounds(raw):
    totals = raw.sum(axis=-1, keepdims=True)
    proba = np.where(totals > 0, raw / np.where(totals > 0, totals, 1), 1 / raw.shape[-1])
    n_classes = proba.shape[-1]
    aleatoric = aleatoric_uncertainty(proba)
    epistemic = epistemic_uncertainty(proba)
    total = aleatoric + epistemic
    stability = label_stability(proba.argmax(axis=2), labels=range(n_classes))
    assert np.all((stability >= 0) & (stability <= 1))
    assert np.all(epistemic >= -1e-12)
    assert np.all(aleatoric <= total + 1e-12)
    assert np.all(aleatoric >= 0)
    assert np.all(total <= math.log2(n_classes) + 1e-12)


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(2, 6), st.integers(1, 8)), elements=st.floats(0, 1))
)
def test_multiclass_formulas_with_two_classes_equal_binary(positive):
    proba = np.stack([1 - positive, positive], axis=-1)
    np.testing.assert_allclose(aleatoric_uncertainty(proba), aleatoric_uncertainty(positive))
    np.testing.assert_allclose(
        epistemic_uncertainty(proba), epistemic_uncertainty(positive), atol=1e-12
    )
    labels = _virny_labels(positive)
    n_pos = labels.sum(axis=0)
    virny_stability = np.abs(n_pos - (labels.shape[0] - n_pos)) / labels.shape[0]
    np.testing.assert_allclose(label_stability(labels, labels=[0, 1]), virny_stability)


def test_swapping_privileged_group_flips_sign_and_integer_weights_equal_repetition():
    rng = np.random.default_rng(2)
    proba = rng.uniform(size=(5, 30))
    groups = rng.choice(["x", "y"], size=30)
    weights = rng.integers(0, 4, size=30)
    for metric in (epistemic_uncertainty_difference, aleatoric_uncertainty_difference):
        to_x = metric(None, proba, sensitive_features=groups, privileged_group="x")
        to_y = metric(None, proba, sensitive_features=groups, privileged_group="y")
        assert to_x == pytest.approx(-to_y)
        assert abs(to_x) == pytest.approx(metric(None, proba, sensitive_features=groups))
        weighted = metric(None, proba, sensitive_features=groups, sample_weight=weights)
        repeated = metric(
            None, np.repeat(proba, weights, axis=1), sensitive_features=np.repeat(groups, weights)
        )
        assert weighted == pytest.approx(repeated)
    labels = _virny_labels(proba)
    weighted = label_stability_difference(
        None, labels, sensitive_features=groups, sample_weight=weights
    )
    repeated = label_stability_difference(
        None, np.repeat(labels, weights, axis=1), sensitive_features=np.repeat(groups, weights)
    )
    assert weighted == pytest.approx(repeated)


def test_intersectional_groups():
    proba = np.array([[0.0, 0.3, 1.0, 0.2], [1.0, 0.3, 0.0, 0.2]])  # epistemic [1, 0, 1, 0]
    sensitive = {"sex": ["F", "F", "M", "M"], "race": ["a", "b", "a", "b"]}
    assert epistemic_uncertainty_difference(None, proba, sensitive_features=sensitive) == (
        pytest.approx(1.0)
    )
    # Privileged = (M, b): dis pools the other three samples, mean 2/3.
    value = epistemic_uncertainty_difference(
        None, proba, sensitive_features=sensitive, privileged_group=("M", "b")
    )
    assert value == pytest.approx(2 / 3)


# --------------------------------------------------------------------------------------------
# input validation


def test_one_group():
    proba = R1_PROBA
    with pytest.warns(UserWarning, match="one group"):
        assert epistemic_uncertainty_difference(None, proba, sensitive_features=["a"] * 6) == 0.0
    with pytest.raises(ValueError, match="covers every group"):
        epistemic_uncertainty_difference(
            None, proba, sensitive_features=["a"] * 6, privileged_group="a"
        )


def test_zero_weight_group_is_left_out():
    weights = [1, 1, 1, 0, 0, 0]
    with pytest.warns(UserWarning, match="undefined"):
        value = aleatoric_uncertainty_difference(
            None, R1_PROBA, sensitive_features=R1_GROUPS, sample_weight=weights
        )
    assert np.isnan(value)
    groups = ["a", "a", "b", "b", "c", "c"]
    with pytest.warns(UserWarning, match=r"\['c'\]"):
        value = aleatoric_uncertainty_difference(
            None, R1_PROBA, sensitive_features=groups, sample_weight=[1, 1, 1, 1, 0, 0]
        )
    means = aleatoric_uncertainty(R1_PROBA)[:4].reshape(2, 2).mean(axis=1)
    assert value == pytest.approx(abs(means[0] - means[1]))


@pytest.mark.parametrize(
    "y_proba, match",
    [
        (np.full(6, 0.5), "n_estimators, n_samples"),
        (np.full((1, 6), 0.5), "at least 2 members"),
        (np.full((3, 6), 1.5), r"\[0, 1\]"),
        (np.full((3, 6), np.nan), "NaN"),
        (np.full((3, 6, 2), 0.4), "sum to 1"),
        (np.full((3, 6, 1), 1.0), "class column"),
        (np.full((3, 6, 2, 1), 0.5), "n_estimators, n_samples"),
    ],
)
def test_invalid_probabilities(y_proba, match):
    with pytest.raises(ValueError, match=match):
        epistemic_uncertainty_difference(None, y_proba, sensitive_features=R1_GROUPS)


def test_invalid_labels_and_lengths():
    labels = _virny_labels(R1_PROBA)
    with pytest.raises(ValueError, match="n_estimators, n_samples"):
        label_stability_difference(None, labels[0], sensitive_features=R1_GROUPS)
    with pytest.raises(ValueError, match="probabilities"):
        label_stability(R1_PROBA)
    np.testing.assert_allclose(label_stability(labels.astype(float)), R1_LS)
    with pytest.raises(ValueError, match="not in labels"):
        label_stability(labels, labels=[0, 2])
    with pytest.raises(ValueError, match="y_true has 5"):
        label_stability_difference(R1_Y_TRUE[:5], labels, sensitive_features=R1_GROUPS)
    with pytest.raises(ValueError, match="has 5 samples"):
        label_stability_difference(None, labels, sensitive_features=R1_GROUPS[:5])
    with pytest.raises(ValueError, match="missing"):
        label_stability_difference(None, labels, sensitive_features=[None, "a", "a", "b", "b", "b"])


def test_no_warnings_on_certain_members():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        aleatoric_uncertainty(np.array([[0.0, 1.0], [1.0, 0.0]]))
        epistemic_uncertainty(np.array([[0.0, 1.0], [1.0, 0.0]]))
