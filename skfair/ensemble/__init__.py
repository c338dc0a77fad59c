"""skfair.ensemble."""
