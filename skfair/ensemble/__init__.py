"""Bootstrap ensembles for stability and uncertainty disparities."""

from skfair.ensemble._bootstrap import BootstrapEnsemble

__all__ = ["BootstrapEnsemble"]
