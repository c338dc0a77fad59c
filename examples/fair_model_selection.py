"""
Fairness-aware model selection with plain scikit-learn
======================================================

The recipe recommended in fairlearn #1374: ``GridSearchCV`` with a multi-metric ``scoring``
dict (a performance scorer and a fairness scorer) and a callable ``refit`` that picks the most
accurate candidate whose unfairness stays under a bound
(:func:`skfair.metrics.most_accurate_within`).

The sensitive column travels inside X (``sensitive_column="sex"``), so nothing needs metadata
routing. The model must not see that column: a ``ColumnTransformer`` drops it.

Fairness scorers return ``-loss`` (scikit-learn maximises scores), so ``cv_results_`` show the
statistical parity difference negated: 0 is parity, -0.2 a 20-point gap in selection rates.
With a callable ``refit``, ``GridSearchCV`` sets ``best_index_`` and ``best_params_`` but not
``best_score_``.

Run: ``python examples/fair_model_selection.py``.

Run time: about 44 s (measured on a shared 2-core machine, load average 6.6; less on an idle
one).
"""

import numpy as np
from sklearn.compose import ColumnTransformer, make_column_selector
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from skfair.datasets import load_adult
from skfair.metrics import get_fairness_scorer, most_accurate_within, statistical_parity_difference

adult = load_adult(as_frame=True)
X, y = adult.data, adult.target

# Everything but the sensitive attributes reaches the model; race and sex are dropped.
features = ColumnTransformer(
    [
        ("drop_sensitive", "drop", ["sex", "race"]),
        ("numeric", StandardScaler(), make_column_selector(dtype_include=np.number)),
    ],
    remainder=OneHotEncoder(handle_unknown="ignore"),
)
model = Pipeline([("features", features), ("clf", LogisticRegression(max_iter=1000))])

scoring = {
    "accuracy": "accuracy",
    "spd": get_fairness_scorer("statistical_parity_difference", sensitive_column="sex"),
}
# The bound is a parity loss: a selection-rate gap of at most 0.12 between women and men.
refit = most_accurate_within(0.12, fairness="spd", performance="accuracy")
search = GridSearchCV(
    model,
    {"clf__C": [1e-4, 3e-4, 1e-3, 1e-2, 1.0], "clf__class_weight": [None, "balanced"]},
    scoring=scoring,
    refit=refit,
    cv=3,
    n_jobs=2,
)
search.fit(X, y)

results = search.cv_results_
print(f"{'C':>8} {'class_weight':>12} {'accuracy':>9} {'SPD gap':>8}")
for params, accuracy, spd in zip(
    results["params"], results["mean_test_accuracy"], results["mean_test_spd"]
):
    print(
        f"{params['clf__C']:>8g} {str(params['clf__class_weight']):>12} "
        f"{accuracy:>9.4f} {-spd:>8.4f}"
    )
print("chosen:", search.best_params_)

test = load_adult(as_frame=True, split="test")
y_pred = search.predict(test.data)
gap = statistical_parity_difference(
    test.target, y_pred, sensitive_features=test.sensitive_features["sex"]
)
print(f"test accuracy {np.mean(y_pred == test.target):.4f}, selection-rate gap {gap:.4f}")
