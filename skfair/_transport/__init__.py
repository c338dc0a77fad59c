"""One-dimensional optimal transport under the repairs of scores and of features.

The repair transformer that every repair shares (``_repair``: input, groups, weights,
random numbers and the dask paths) and the barycenter maps (``_barycenter``: each group's
quantile function and ECDF, their W2 barycenter or median, partial repair along the
geodesic), used by :class:`~skfair.postprocessing.BarycenterRepair`,
:class:`~skfair.postprocessing.MADDRepair` and :class:`~skfair.preprocessing.FeatureRepair`.
"""
