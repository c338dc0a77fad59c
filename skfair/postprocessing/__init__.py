"""skfair.postprocessing."""
