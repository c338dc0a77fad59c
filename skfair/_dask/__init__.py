"""The Dask executor, beneath the metrics and the repairs.

It maps the chunk phase of a two-phase statistic of :mod:`skfair._stats` over the partitions
of dask collections, merges the results in a tree on the workers, and hands the merged
statistic to its formula (:func:`reduce_blocks`); it maps a fitted object over row blocks
lazily (:func:`map_row_blocks`). Public functions say what they do with dask input through
:func:`dask_dispatch` and a plan (:func:`table_plan`, :func:`refuse`, or their own). It imports
only :mod:`skfair._stats`, :mod:`skfair._utils._groups`, :mod:`skfair._utils._validation` (and
:mod:`skfair._utils._frames` through them): nothing of the layers above.

Nothing here imports dask at import time; see :mod:`skfair._dask._detect`.
"""

from skfair._dask._blocks import map_row_blocks, reduce_row_blocks, uses_dask
from skfair._dask._columns import align
from skfair._dask._detect import import_dask, is_dask_collection
from skfair._dask._dispatch import (
    MAX_TABLE_ROWS,
    check_block,
    check_block_lengths,
    check_fit_block,
    check_in_memory,
    dask_dispatch,
    reduce_arguments,
    refuse,
    round_to_grid,
    table_plan,
)
from skfair._dask._executor import reduce_blocks

__all__ = [
    "MAX_TABLE_ROWS",
    "align",
    "check_block",
    "check_block_lengths",
    "check_fit_block",
    "check_in_memory",
    "dask_dispatch",
    "import_dask",
    "is_dask_collection",
    "map_row_blocks",
    "reduce_arguments",
    "reduce_blocks",
    "reduce_row_blocks",
    "refuse",
    "round_to_grid",
    "table_plan",
    "uses_dask",
]
