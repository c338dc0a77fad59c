"""skfair.plotting."""

from skfair.plotting._madd import MADDDisplay
from skfair.plotting._repair import RepairDisplay

__all__ = ["MADDDisplay", "RepairDisplay"]
