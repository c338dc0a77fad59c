"""skfair.plotting."""

from skfair.plotting._bias import BiasExplanationDisplay
from skfair.plotting._madd import MADDDisplay

__all__ = ["BiasExplanationDisplay", "MADDDisplay"]
