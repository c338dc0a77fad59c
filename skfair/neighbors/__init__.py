"""skfair.neighbors."""
