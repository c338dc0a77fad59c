"""Post-processors of model outputs towards group fairness.

Two kinds, in two parts of the package: score repairs (``BarycenterRepair``, ``MADDRepair``
and the ``RepairedClassifier`` / ``RepairedRegressor`` wrappers), which transport the outputs'
distributions, and decision rules (``GroupThresholdClassifier``,
``MulticlassGroupThresholdClassifier``, ``threshold_pareto_front``), which
choose per-group randomised decisions from a model's scores.
"""

from skfair.postprocessing._barycenter import (
    BarycenterRepair,
)
from skfair.postprocessing._madd_repair import (
    MADDRepair,
)
from skfair.postprocessing._repaired import (
    RepairedClassifier,
    RepairedRegressor,
)
from skfair.postprocessing._rules._multiclass_thresholds import (
    MulticlassGroupThresholdClassifier,
)
from skfair.postprocessing._rules._pareto import (
    threshold_pareto_front,
)
from skfair.postprocessing._rules._thresholds import (
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
