"""skfair: measure, repair and explain group bias of scikit-learn models.

Subpackages
-----------
metrics
    Group disparity metrics and scikit-learn scorers.
neighbors
    Nearest neighbour in another group (for HFM).
postprocessing
    Output repairs (Wasserstein barycenter, MADD) and repaired-model wrappers.
reductions
    Training any estimator under a fairness constraint (exponentiated gradient, grid search).
explain
    Bias explainers (Wasserstein model bias, Shapley-bias explanations).
ensemble
    Bootstrap ensembles for stability and uncertainty disparities.
subgroups
    Subgroup discovery: the subgroups a model treats worst, tested.
datasets
    Bundled real data sets and the papers' simulations.
plotting
    Display classes (needs matplotlib).
"""

__version__ = "0.1.0.dev0"

from skfair._utils._name_clash import warn_about_other_providers as _warn_about_other_providers

_warn_about_other_providers(__path__[0])
