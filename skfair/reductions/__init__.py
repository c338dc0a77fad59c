"""Train under a fairness constraint: the reductions approach (in-processing).

``ExponentiatedGradient`` and ``GridSearch`` wrap any classifier (any regressor for bounded
group loss) and fit it on reweighted and relabelled data until the constraint holds; their
``predict`` never needs the sensitive attribute.
"""

from skfair.reductions._exponentiated_gradient import (
    ExponentiatedGradient,
)
from skfair.reductions._grid_search import (
    GridSearch,
)

__all__ = [
    "ExponentiatedGradient",
    "GridSearch",
]
