"""Group disparity metrics and scikit-learn scorers.

Conventions shared by every metric of this module:

- **Signed or unsigned.** With ``privileged_group`` a disparity is signed. The label,
  stability and uncertainty metrics report ``measure(disadvantaged) - measure(privileged)``
  (ratios ``disadvantaged / privileged``), as aif360; the score-distribution metrics
  (:func:`wasserstein_bias`, :func:`ks_bias`, :func:`quantile_bias`,
  :func:`classifier_bias`) keep the orientation of their paper, positive when the privileged
  group is favoured. ``privileged_group`` may name several groups, whose samples are pooled
  into the privileged side. Without ``privileged_group`` a disparity is unsigned: the largest
  gap between any two groups (ratios ``min / max``), as fairlearn.
- **More than two groups against a privileged group.** ``disadvantaged="pooled"`` (the
  default of every metric with ``privileged_group``) pools every sample outside the
  privileged group(s) into one disadvantaged side, which reproduces aif360.
  ``disadvantaged="each"`` compares every other group on its own with the privileged side
  and reports the comparison furthest from parity (the largest absolute difference, sign
  kept; the ratio with the smallest ``min(r, 1 / r)``); the score-distribution metrics
  combine those pairs with their ``agg``. Pooling answers "are the others treated worse on
  average?"; ``"each"`` shows a small group treated much worse than the rest, which pooling
  dilutes. Metrics that combine several rates (equalized odds, average odds) combine them
  group by group before the furthest group is kept.
- **A single group.** With one group in the sensitive features there is nothing to compare:
  every group metric returns its "no disparity" value (0.0, or 1.0 for a ratio) and warns
  with scikit-learn's :class:`~sklearn.exceptions.UndefinedMetricWarning` (a subclass of
  ``UserWarning``), so that a cross-validation fold holding one group is not silently scored
  as perfectly fair. Scorers propagate the warning. A ``privileged_group`` covering every
  group raises instead (the signed difference has no disadvantaged side).
- **Undefined rates.** A group whose rate has an empty denominator (e.g. no positives for a
  true positive rate) is left out of an unsigned comparison with the same warning class.
- **The word ``agg``** names three different combinations, each documented with its
  function:

  * :func:`equalized_odds_difference` ``agg={"worst_case", "mean"}`` combines its two
    error-rate gaps (false positive and false negative rates) into one number;
  * :func:`wasserstein_bias`, :func:`ks_bias`, :func:`quantile_bias`,
    :func:`classifier_bias` ``agg={"worst_case", "mean", "weighted"}`` combine the compared
    *pairs of groups and classes of y_true* (largest in magnitude, plain mean, mean weighted
    by the pair's total weight);
  * :func:`madd` and :func:`madd_bandwidth_search` ``agg={"worst_case", "mean"}`` combine
    the compared *pairs of groups* (largest pairwise MADD or their mean).

:class:`MetricTable` applies the same conventions to several metrics at once, from one count
table, with bootstrap intervals for every value and aggregate.
"""

from skfair.metrics._consistency import consistency_score
from skfair.metrics._demographic_disparity import conditional_demographic_disparity
from skfair.metrics._distribution import (
    classifier_bias,
    ks_bias,
    quantile_bias,
    wasserstein_bias,
)
from skfair.metrics._group_summary import group_summary
from skfair.metrics._hfm import (
    hfm,
    hfm_details,
)
from skfair.metrics._inequality import (
    between_group_coefficient_of_variation,
    between_group_generalized_entropy_index,
    between_group_theil_index,
    coefficient_of_variation,
    generalized_entropy_index,
    theil_index,
)
from skfair.metrics._madd import (
    madd,
    madd_bandwidth_search,
)
from skfair.metrics._metric_table import MetricTable
from skfair.metrics._multiclass import demographic_parity_unfairness, equalized_odds_unfairness
from skfair.metrics._rates import (
    accuracy_difference,
    average_abs_odds_difference,
    average_odds_difference,
    disparate_impact_ratio,
    equalized_odds_difference,
    equalized_odds_ratio,
    error_rate_ratio,
    false_discovery_rate_difference,
    false_negative_rate_difference,
    false_omission_rate_difference,
    false_positive_rate_difference,
    false_positive_rate_ratio,
    negative_predictive_value_difference,
    positive_predictive_value_difference,
    statistical_parity_difference,
    true_negative_rate_difference,
    true_positive_rate_difference,
    true_positive_rate_ratio,
)
from skfair.metrics._scorer import (
    get_fairness_scorer,
    make_fairness_scorer,
    most_accurate_within,
)
from skfair.metrics._uncertainty import (
    aleatoric_uncertainty,
    aleatoric_uncertainty_difference,
    epistemic_uncertainty,
    epistemic_uncertainty_difference,
    label_stability,
    label_stability_difference,
)

__all__ = [
    "MetricTable",
    "accuracy_difference",
    "aleatoric_uncertainty",
    "aleatoric_uncertainty_difference",
    "average_abs_odds_difference",
    "average_odds_difference",
    "between_group_coefficient_of_variation",
    "between_group_generalized_entropy_index",
    "between_group_theil_index",
    "classifier_bias",
    "coefficient_of_variation",
    "conditional_demographic_disparity",
    "consistency_score",
    "demographic_parity_unfairness",
    "disparate_impact_ratio",
    "epistemic_uncertainty",
    "epistemic_uncertainty_difference",
    "equalized_odds_difference",
    "equalized_odds_ratio",
    "equalized_odds_unfairness",
    "error_rate_ratio",
    "false_discovery_rate_difference",
    "false_negative_rate_difference",
    "false_omission_rate_difference",
    "false_positive_rate_difference",
    "false_positive_rate_ratio",
    "generalized_entropy_index",
    "get_fairness_scorer",
    "group_summary",
    "hfm",
    "hfm_details",
    "ks_bias",
    "label_stability",
    "label_stability_difference",
    "madd",
    "madd_bandwidth_search",
    "make_fairness_scorer",
    "most_accurate_within",
    "negative_predictive_value_difference",
    "positive_predictive_value_difference",
    "quantile_bias",
    "statistical_parity_difference",
    "theil_index",
    "true_negative_rate_difference",
    "true_positive_rate_difference",
    "true_positive_rate_ratio",
    "wasserstein_bias",
]
