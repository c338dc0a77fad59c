"""skfair.metrics."""

from skfair.metrics._madd import madd, madd_bandwidth_search

__all__ = ["madd", "madd_bandwidth_search"]
