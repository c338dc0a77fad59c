"""
Which subgroups does a census-income model fail most?
=====================================================

A logistic regression predicts whether a person of the bundled UCI Adult data earns more than
50K a year. Rather than comparing groups named in advance, :func:`skfair.subgroups.find_subgroups`
searches every conjunction of up to three conditions on sex, race, age, marital status and
workclass for the subgroups whose false negative rate (high earners predicted as low earners)
is furthest above the rest's, on held-out rows, with q-values that control the false
discovery rate over every subgroup evaluated. The first subgroup then becomes a sensitive
feature: its rates, with bootstrap intervals, through :class:`skfair.metrics.MetricTable`.

Run from the repository root::

    python examples/subgroups_adult.py

Run time: about 3 s (measured on a shared 2-core machine, load average 0.7; less on an idle
one).
"""

import matplotlib.pyplot as plt
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from skfair.datasets import load_adult
from skfair.metrics import MetricTable
from skfair.plotting import SubgroupDisplay
from skfair.subgroups import find_subgroups

adult = load_adult(as_frame=True)
numeric = ["age", "education-num", "hours-per-week", "capital-gain", "capital-loss"]
train, test = train_test_split(adult.frame, test_size=0.3, random_state=0)
target = "income-per-year"
model = LogisticRegression(max_iter=2000).fit(train[numeric], train[target])
y_pred = model.predict(test[numeric])

# %%
# Search the subgroups, exactly, and test their gaps.
columns = ["sex", "race", "age", "marital-status", "workclass"]
report = find_subgroups(
    test[target],
    y_pred,
    features=test[columns],
    metric="false_negative_rate",
    max_level=3,
    min_support=30,
    k=8,
)
print(report)
print(report.to_frame()[["description", "n", "value", "rest_value", "q_value"]])

# %%
# The gaps of the top subgroups, with their 95 % intervals.
SubgroupDisplay.from_report(report)
plt.show()

# %%
# The first subgroup as a sensitive feature: its rates against the rest, with intervals.
table = MetricTable(
    ["false_negative_rate", "selection_rate"],
    test[target],
    y_pred,
    sensitive_features=report.membership(0),
    n_boot=500,
    random_state=0,
    as_frame=True,
)
print(table.by_group)
