"""skfair.explain."""
