"""skfair.datasets."""
