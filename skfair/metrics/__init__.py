"""Group disparity metrics and scikit-learn scorers."""

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
from skfair.metrics._madd import (
    madd,
    madd_bandwidth_search,
)
from skfair.metrics._metric_table import (
    MetricTable,
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
    "classifier_bias",
    "demographic_parity_unfairness",
    "disparate_impact_ratio",
    "epistemic_uncertainty",
    "epistemic_uncertainty_difference",
    "equalized_odds_difference",
    "equalized_odds_unfairness",
    "false_negative_rate_difference",
    "false_positive_rate_difference",
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
    "quantile_bias",
    "statistical_parity_difference",
    "true_positive_rate_difference",
    "wasserstein_bias",
]
