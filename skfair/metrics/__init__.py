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
from skfair.metrics._group_summary import group_summary

__all__ = [
    "accuracy_difference",
    "demographic_parity_unfairness",
    "disparate_impact_ratio",
    "equalized_odds_difference",
    "equalized_odds_unfairness",
    "false_negative_rate_difference",
    "false_positive_rate_difference",
    "group_summary",
    "statistical_parity_difference",
    "true_positive_rate_difference",
]
