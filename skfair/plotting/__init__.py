"""skfair.plotting."""
