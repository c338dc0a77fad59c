"""Group disparity metrics and scikit-learn scorers.

Comparing groups
----------------
Every group metric of this module follows the same rules.

- Without ``privileged_group`` a disparity is unsigned: the largest gap between any two
  groups (``max - min`` of the per-group values; ratios ``min / max``), as in fairlearn.
- With ``privileged_group`` it is signed, disadvantaged minus privileged (ratios
  disadvantaged over privileged), as in aif360. ``privileged_group`` names one group or
  several (their samples are pooled into the privileged side).
- With more than two groups, ``disadvantaged="pooled"`` (the default) pools every other
  sample into one disadvantaged side and compares it with the privileged side; this
  reproduces aif360, whose metrics compare the privileged with the unprivileged samples.
  ``disadvantaged="each"`` compares every other group on its own with the privileged side
  and reports the comparison furthest from parity (the largest absolute difference, sign
  kept; the ratio with the smallest ``min(r, 1 / r)``); score-distribution metrics
  combine the compared pairs with their ``agg`` instead. Pooling answers "are the
  non-privileged treated worse on average?"; ``"each"`` shows a small group treated much
  worse than the others, which pooling dilutes. Metrics that combine several rates
  (equalized odds, average odds) combine them group by group before the furthest is kept.

:class:`MetricTable` applies the same rules to several metrics at once, with bootstrap
intervals for every value and aggregate.
"""

from skfair.metrics._classification import (
    accuracy_difference,
    demographic_parity_unfairness,
    disparate_impact_ratio,
    equalized_odds_difference,
    equalized_odds_unfairness,
    false_negative_rate_difference,
    false_positive_rate_difference,
    statistical_parity_difference,
    true_positive_rate_difference,
)
from skfair.metrics._consistency import (
    consistency_score,
)
from skfair.metrics._demographic_disparity import (
    conditional_demographic_disparity,
)
from skfair.metrics._distribution import (
    classifier_bias,
    ks_bias,
    quantile_bias,
    wasserstein_bias,
)
from skfair.metrics._group_summary import (
    group_summary,
)
from skfair.metrics._hfm import (
    hfm,
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
from skfair.metrics._metric_table import (
    MetricTable,
)
from skfair.metrics._odds import (
    average_abs_odds_difference,
    average_odds_difference,
    equalized_odds_ratio,
    error_rate_ratio,
    false_positive_rate_ratio,
    true_negative_rate_difference,
    true_positive_rate_ratio,
)
from skfair.metrics._predictive import (
    false_discovery_rate_difference,
    false_omission_rate_difference,
    negative_predictive_value_difference,
    positive_predictive_value_difference,
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
