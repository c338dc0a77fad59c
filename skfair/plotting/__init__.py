"""skfair.plotting."""

from skfair.plotting._bias import BiasExplanationDisplay

__all__ = ["BiasExplanationDisplay"]
