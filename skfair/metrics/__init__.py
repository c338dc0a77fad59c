"""skfair.metrics."""

from skfair.metrics._distribution import classifier_bias, ks_bias, quantile_bias, wasserstein_bias

__all__ = ["classifier_bias", "ks_bias", "quantile_bias", "wasserstein_bias"]
