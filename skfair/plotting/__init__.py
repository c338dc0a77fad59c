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

__all__ = [
    "BiasExplanationDisplay",
    "MADDDisplay",
    "RepairDisplay",
]
