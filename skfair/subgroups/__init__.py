"""Subgroup discovery: the subgroups in which a model's metric is furthest from the rest.

:func:`find_subgroups` searches the conjunctions of conditions on a few columns (``sex =
Female & age in (60, 90]``) exactly, by counting, and tests their gaps with control of the
false discovery rate; :class:`SubgroupReport` holds what it finds.
"""

from skfair.subgroups._find import find_subgroups
from skfair.subgroups._report import SubgroupReport

__all__ = ["SubgroupReport", "find_subgroups"]
