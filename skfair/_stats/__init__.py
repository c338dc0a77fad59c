"""Sufficient statistics shared by skfair's metrics, repairs, ensembles and explainers.

Every group computation of skfair runs in two steps: (1) reduce the samples to a small table
(a sufficient statistic), (2) apply a small formula to the table. This private package holds
both steps, one concept per module:

- :mod:`~skfair._stats._table`: frequency tables, the distinct rows of key columns with their
  frequencies, weights and value sums (the weighted input of every count-table metric);
- :mod:`~skfair._stats._counts`: weighted count tables (group x y_true x y_pred), per-group
  sums, and the bootstrap drawn from a count table;
- :mod:`~skfair._stats._histograms`: per-group histograms on fixed bins of [0, 1] and the
  swept histograms and bandwidth helpers of MADD;
- :mod:`~skfair._stats._sorted`: rows sorted by group and value (``sort_by_code``, the one
  sort of the distribution metrics and the repairs), Wasserstein-1 and Kolmogorov-Smirnov
  parts, weighted CDF and quantiles at given points, numpy's linear quantiles and the exact
  selection of order statistics over chunks;
- :mod:`~skfair._stats._roc`: per-group ROC tables (distinct scores with the weight of
  positives and negatives at each), the statistic of the group thresholds;
- :mod:`~skfair._stats._votes`: votes of ensemble members, entropy, label stability, and the
  per-group sums of the stability and uncertainty disparities;
- :mod:`~skfair._stats._aggregate`: per-group or per-pair values turned into one score
  (differences, ratios, worst case, mean).

A statistic that is computed over chunks of data is an object with three methods:
``chunk`` (what one chunk of rows gives: a table whose size does not grow with the chunk),
``merge`` (how the results of several chunks add up) and ``formula`` (what the merged result
gives). :mod:`skfair._dask` maps ``chunk`` over the partitions of dask collections and merges
the results on the workers; the in-memory path is the one-chunk case of the same statistics
and formulas, so that the result does not depend on how the data are chunked.
"""
