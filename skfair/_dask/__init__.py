"""Scale-out on Dask: public functions accept dask collections through :func:`dask_dispatch`.

Nothing here imports dask at import time; see :mod:`skfair._dask._detect`.
"""

from skfair._dask._detect import check_in_memory, import_dask, is_dask_collection
from skfair._dask._dispatch import dask_dispatch, round_to_grid

__all__ = ["check_in_memory", "dask_dispatch", "import_dask", "is_dask_collection", "round_to_grid"]
