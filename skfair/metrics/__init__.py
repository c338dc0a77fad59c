"""skfair.metrics."""

from skfair.metrics._uncertainty import (
    aleatoric_uncertainty,
    aleatoric_uncertainty_difference,
    epistemic_uncertainty,
    epistemic_uncertainty_difference,
    label_stability,
    label_stability_difference,
)

__all__ = [
    "aleatoric_uncertainty",
    "aleatoric_uncertainty_difference",
    "epistemic_uncertainty",
    "epistemic_uncertainty_difference",
    "label_stability",
    "label_stability_difference",
]
