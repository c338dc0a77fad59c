"""skfair.datasets."""

from skfair.datasets._madd_simulation import make_madd_simulation

__all__ = ["make_madd_simulation"]
