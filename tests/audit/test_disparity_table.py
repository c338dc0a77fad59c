"""The audit's disparity table, read off one MetricTable, equals the metric functions."""

import warnings

import numpy as np
import pytest

from skfair import metrics
from skfair._audit._sections import _DISPARITY_METRICS, _disparities


def sample(seed, n=400):
    rng = np.random.default_rng(seed)
    region = rng.choice(["north", "south", "east", "tiny"], n, p=[0.4, 0.3, 0.29, 0.01])
    sex = rng.choice(["F", "M"], n)
    y_true = rng.integers(0, 2, n)
    y_true[region == "tiny"] = 0  # a group without positives: its TPR and FNR are undefined
    y_pred = (rng.random(n) < 0.3 + 0.3 * y_true + 0.1 * (sex == "M")).astype(int)
    return y_true, y_pred, {"sex": sex, "region": region}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "column, privileged",
    [
        ("sex", None),
        ("sex", "M"),
        ("region", None),
        ("region", "north"),
        ("region", "tiny"),
        ("joint", None),
    ],
)
def test_disparities_equal_the_metric_functions(seed, column, privileged):
    y_true, y_pred, sensitive = sample(seed)
    values = dict(sensitive) if column == "joint" else sensitive[column]
    kwargs = {} if privileged is None else {"privileged_group": privileged}
    got = _disparities(y_true, y_pred, values, privileged)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the undefined rates of "tiny"
        expected = [
            getattr(metrics, name)(y_true, y_pred, sensitive_features=values, **kwargs)
            for _, name in _DISPARITY_METRICS
        ]
    # the size of the larger equalized-odds component, unsigned
    rows = [row for row, _ in _DISPARITY_METRICS]
    size = rows.index("equalized odds: max |component|")
    expected[size] = abs(expected[size])
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12, equal_nan=True)
