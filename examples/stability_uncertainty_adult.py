"""
Stability and uncertainty disparities of a classifier on Adult
==============================================================

Virny's stability and uncertainty measures.

A logistic regression is refitted on 30 bootstrap samples of Adult's training split
(:class:`skfair.ensemble.BootstrapEnsemble`, 80 % of the rows drawn with replacement). On the
test split, each person gets

- a label stability (1: every replica gives the same decision; 0: the replicas split evenly),
- an epistemic uncertainty (how much the replicas disagree: the model's own uncertainty, which
  more data would reduce), and
- an aleatoric uncertainty (how unsure the replicas are on average: noise in the data),

and the groups are compared: disadvantaged minus privileged, as in Virny's
``Label_Stability_Difference`` and ``*_Uncertainty_Difference``.

On Adult the replicas are *more* settled about women than about men (stability difference
about +0.02, aleatoric uncertainty difference about -0.28 bits): most women are confidently
predicted to earn <=50K, reflecting the low base rate in the data. Stable predictions are not
the same as fair ones; read these numbers next to the error-rate disparities
(``python -m skfair audit``).

Run with ``python examples/stability_uncertainty_adult.py``.

Run time: about 31 s (measured on a shared 2-core machine, load average 4.5; less on an idle
one).
"""

import numpy as np
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from skfair.datasets import load_adult
from skfair.ensemble import BootstrapEnsemble
from skfair.metrics import (
    aleatoric_uncertainty_difference,
    epistemic_uncertainty_difference,
    label_stability_difference,
)

train, test = load_adult(split="train"), load_adult(split="test")
names = train.feature_names.tolist()
categorical = [names.index(name) for name in train.categorical_features]
numeric = [j for j in range(len(names)) if j not in categorical]
model = make_pipeline(
    make_column_transformer(
        (OneHotEncoder(handle_unknown="ignore"), categorical), (StandardScaler(), numeric)
    ),
    LogisticRegression(max_iter=1000),
)

ensemble = BootstrapEnsemble(model, n_estimators=30, random_state=0, n_jobs=2)
ensemble.fit(train.data, train.target)
per_sample = ensemble.uncertainty(test.data)  # Bunch of arrays of shape (n_test,)
member_labels = ensemble.predict_members(test.data)  # (n_estimators, n_test)
member_proba = ensemble.predict_proba_members(test.data)  # (n_estimators, n_test, 2)

print(f"test accuracy of the soft vote: {np.mean(ensemble.predict(test.data) == test.target):.3f}")
print(
    f"share of test rows on which the 30 replicas disagree: "
    f"{np.mean(per_sample.label_stability < 1):.3f}\n"
)
for attribute, privileged in [("sex", "Male"), ("race", "White")]:
    groups = test.sensitive_features[:, list(test.sensitive_feature_names).index(attribute)]
    print(f"{attribute:<20} {'n':>6} {'stability':>10} {'epistemic':>10} {'aleatoric':>10}")
    for group in np.unique(groups):
        rows = groups == group
        print(
            f"{group:<20} {rows.sum():>6} {per_sample.label_stability[rows].mean():>10.4f} "
            f"{per_sample.epistemic[rows].mean():>10.4f} {per_sample.aleatoric[rows].mean():>10.4f}"
        )
    kwargs = dict(sensitive_features=groups, privileged_group=privileged)
    print(
        f"{'dis - priv':<20} {'':>6} "
        f"{label_stability_difference(test.target, member_labels, **kwargs):>10.4f} "
        f"{epistemic_uncertainty_difference(test.target, member_proba, **kwargs):>10.4f} "
        f"{aleatoric_uncertainty_difference(test.target, member_proba, **kwargs):>10.4f}\n"
    )
print(
    "dis - priv: all other groups pooled minus the privileged group. Negative stability and "
    "positive uncertainty differences mean the model is less settled about the disadvantaged "
    "group."
)
