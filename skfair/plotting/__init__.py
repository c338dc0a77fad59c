"""Display classes for skfair results (matplotlib, installed with the `plot` extra)."""

from skfair.plotting._bias import (
    BiasExplanationDisplay,
)
from skfair.plotting._group_rates import (
    GroupRatesDisplay,
)
from skfair.plotting._madd import (
    MADDDisplay,
)
from skfair.plotting._pareto import (
    ParetoFrontDisplay,
)
from skfair.plotting._reductions import (
    ReductionTradeoffDisplay,
)
from skfair.plotting._repair import (
    RepairDisplay,
)
from skfair.plotting._scores import (
    ScoreDistributionDisplay,
)
from skfair.plotting._stability import (
    StabilityDisplay,
)
from skfair.plotting._subgroups import (
    SubgroupDisplay,
)
from skfair.plotting._thresholds import (
    GroupThresholdDisplay,
)

__all__ = [
    "BiasExplanationDisplay",
    "GroupRatesDisplay",
    "GroupThresholdDisplay",
    "MADDDisplay",
    "ParetoFrontDisplay",
    "ReductionTradeoffDisplay",
    "RepairDisplay",
    "ScoreDistributionDisplay",
    "StabilityDisplay",
    "SubgroupDisplay",
]
