"""``GroupThresholdClassifier.fit`` on dask collections, for a model that is already fitted.

The thresholds depend on the data only through each group's ROC table: its distinct scores
with the weight of positive and negative rows at each (:class:`skfair._stats._roc.ScoreLabelTable`).
The fit reads the collections twice, and nothing of the length of the data reaches the client:

1. the table of distinct (label, sensitive values) rows with their weights (a few rows per
   group), which gives the classes, ``pos_label_`` and the groups, in the order the in-memory
   fit gives them;
2. on each partition, the frozen model's scores, the rows' group codes and labels, reduced to
   the partition's ROC tables; the tables merge on the workers (blocks of one score pooled).

The linear program is then the in-memory one on the merged tables. Scores with more distinct
values than a table kept on the client (:data:`skfair._dask.MAX_TABLE_ROWS`) need the
estimator's ``resolution``, which rounds them on a grid first, in memory and on dask alike.
"""

from __future__ import annotations

import numpy as np

from skfair._base import check_meta_input, resolve_sensitive
from skfair._dask import (
    MAX_TABLE_ROWS,
    check_fit_block,
    import_dask,
    reduce_row_blocks,
    round_to_grid,
)
from skfair._stats._roc import ScoreLabelTable

_TABLE_HINT = (
    "Pass resolution= to the GroupThresholdClassifier (e.g. resolution=1e-4): the scores are "
    "then counted on that grid, and the fit is exactly the in-memory fit with the same "
    "resolution."
)


def score_tables(classifier, X, y, sample_weight, sensitive_features, n_groups):
    """Second pass: the merged per-group ROC tables of the frozen model's scores."""
    statistic = ScoreLabelTable(n_groups, max_rows=MAX_TABLE_ROWS, hint=_TABLE_HINT)
    dask = import_dask()
    return reduce_row_blocks(
        statistic,
        [X, y, sensitive_features, sample_weight],
        _score_chunk,
        classifier=dask.delayed(classifier),  # sent once, with its model
    )


def _score_chunk(statistic, X, y, sensitive_features, sample_weight, *, classifier):
    """The ROC tables of one partition (its rows checked as the in-memory fit checks them)."""
    y, weights = check_fit_block(X, y, sample_weight)
    if y.shape[0] == 0:  # an empty partition (the in-memory check of X needs a row)
        return statistic.chunk(np.zeros(0), np.zeros(0, dtype=bool), None, np.zeros(0, int))
    X = check_meta_input(classifier, X, classifier.estimator, reset=False)
    sensitive, X_model = resolve_sensitive(
        X, sensitive_features, classifier.sensitive_column, drop=classifier.drop_sensitive
    )
    scores = classifier._scores(classifier.estimator_, X_model)
    if classifier.resolution is not None:
        scores = round_to_grid(scores, classifier.resolution)
    if classifier._encoding is None:
        codes = np.zeros(y.shape[0], dtype=np.intp)
    else:
        codes = classifier._encoding.encode(sensitive, n_samples=y.shape[0])
    return statistic.chunk(scores, y == classifier.pos_label_, weights, codes)
