"""Nearest neighbour in another group, the primitive of the HFM fairness measure.

For one sensitive attribute, every point gets the distance to its nearest neighbour among the
points of the other groups: exactly (KD-tree or projection sort, bit-identical to brute force),
approximately (the random-projection ApproxDist of Bian, Luo & Xu 2024), or by brute force.
"""

from skfair.neighbors._other_group import nearest_other_group, other_group_distance
from skfair.neighbors._projections import draw_projections

__all__ = ["draw_projections", "nearest_other_group", "other_group_distance"]
