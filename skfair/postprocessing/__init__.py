"""skfair.postprocessing."""

from skfair.postprocessing._madd_repair import MADDRepair

__all__ = ["MADDRepair"]
