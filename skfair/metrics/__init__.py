"""skfair.metrics."""
