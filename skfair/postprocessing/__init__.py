"""Post-processors that repair model outputs towards group fairness."""

from skfair.postprocessing._barycenter import BarycenterRepair

__all__ = ["BarycenterRepair"]
