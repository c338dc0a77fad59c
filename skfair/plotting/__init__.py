"""Display classes for skfair results (matplotlib, installed with the `plot` extra)."""

from skfair.plotting._bias import (
    BiasExplanationDisplay,
)
from skfair.plotting._madd import (
    MADDDisplay,
)
from skfair.plotting._repair import (
    RepairDisplay,
)
from skfair.plotting._thresholds import (
    GroupThresholdDisplay,
)

__all__ = [
    "BiasExplanationDisplay",
    "GroupThresholdDisplay",
    "MADDDisplay",
    "RepairDisplay",
]
