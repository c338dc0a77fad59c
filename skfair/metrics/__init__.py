"""skfair.metrics."""

from skfair.metrics._hfm import hfm

__all__ = ["hfm"]
