"""Sufficient statistics shared by skfair's metrics, repairs, ensembles and explainers.

Every group computation of skfair runs in two steps: (1) reduce the samples to a small table
(a sufficient statistic), (2) apply a small formula to the table. This private package holds
both steps, one concept per module:

- :mod:`~skfair._stats._counts`: weighted count tables (group x y_true x y_pred) and per-group
  sums;
- :mod:`~skfair._stats._histograms`: per-group histograms on fixed bins of [0, 1] and the
  bandwidth helpers of MADD;
- :mod:`~skfair._stats._sorted`: per-group values sorted by score (Wasserstein-1 parts,
  Kolmogorov-Smirnov parts, weighted CDF and quantiles at given points);
- :mod:`~skfair._stats._votes`: votes of ensemble members, entropy and label stability;
- :mod:`~skfair._stats._aggregate`: per-group or per-pair values turned into one score
  (differences, ratios, worst case, mean).

Each module docstring states what its statistic is and how the statistics of two chunks of
data merge: count tables and histograms add up; sorted values merge by a merge sort (or, on
a common grid of distinct values, their weight tables add up). Computing a table per chunk
and adding the tables gives exactly the statistic of the whole data.
"""
