"""Post-processors that repair model outputs towards group fairness."""

from skfair.postprocessing._barycenter import (
    BarycenterRepair,
)
from skfair.postprocessing._madd_repair import (
    MADDRepair,
)
from skfair.postprocessing._multiclass_thresholds import (
    MulticlassGroupThresholdClassifier,
)
from skfair.postprocessing._pareto import (
    threshold_pareto_front,
)
from skfair.postprocessing._repaired import (
    RepairedClassifier,
    RepairedRegressor,
)
from skfair.postprocessing._thresholds import (
    GroupThresholdClassifier,
)

__all__ = [
    "BarycenterRepair",
    "GroupThresholdClassifier",
    "MADDRepair",
    "MulticlassGroupThresholdClassifier",
    "RepairedClassifier",
    "RepairedRegressor",
    "threshold_pareto_front",
]
