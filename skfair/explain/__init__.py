"""skfair.explain: where a model's Wasserstein bias comes from."""

from skfair.explain._bias_explainer import BiasExplainer, explain_bias

__all__ = ["BiasExplainer", "explain_bias"]
