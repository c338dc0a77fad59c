"""skfair.plotting."""

from skfair.plotting._madd import MADDDisplay

__all__ = ["MADDDisplay"]
