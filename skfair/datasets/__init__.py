"""skfair.datasets."""

from skfair.datasets._bias_examples import make_bias_example

__all__ = ["make_bias_example"]
