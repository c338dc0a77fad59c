"""``ExponentiatedGradient.fit`` and ``GridSearch.fit`` on dask collections, with a base
learner that fits them.

The game needs the data through small tables only (:mod:`skfair.reductions._moments`): the
weight of each (group, true class) cell, and each hypothesis's (group, true class,
prediction) table. A best response is the base learner fitted on every row with a label and
a weight that depend on the row only through its cell (:func:`~skfair.reductions._oracle.
cell_gains`). So on dask collections:

1. one pass gives the table of distinct (label, sensitive values) rows with their weights
   (and sums of squared weights): the classes, the groups and the moments, as in memory;
2. each best response fits the base learner on the dask collections themselves, with the
   labels and weights as lazy arrays (the cell's label and gain looked up block by block);
3. one pass per fitted hypothesis reduces its predictions on each partition to its table
   (the members predict in memory, block by block, as the reduction's ``predict`` does);
4. after the game, one pass draws the randomised decisions of the first candidate seed on
   each partition, exactly as ``predict`` draws them on a dask collection (each partition is
   a batch), and reduces them to their table; when they do not meet the bound, a second pass
   does the same for the other candidate seeds together.

Nothing of the length of the data reaches the client; the results equal the in-memory fit's
up to the order of the sums (and, for the drawn decisions, as long as no row of the data
appears twice: on a dask collection the copies of a row share out their draws within their
partition, in memory within the whole data).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from inspect import signature

import numpy as np
from sklearn.utils import Bunch
from sklearn.utils.multiclass import check_classification_targets

from skfair._base import (
    check_meta_input,
    group_codes,
    labels_and_groups,
    new_row_encoding,
    record_input_columns,
    require_y,
    resolve_sensitive,
)
from skfair._dask import (
    check_fit_block,
    import_dask,
    map_row_blocks,
    reduce_row_blocks,
    refuse,
)
from skfair._dask._columns import as_numpy
from skfair._stats._counts import ArraySums
from skfair._utils._random import draw_choices_by_seed, row_keys
from skfair._utils._validation import vector_1d
from skfair.reductions._game import GameData
from skfair.reductions._oracle import (
    BestResponse,
    Response,
    cell_gains,
    class_indices,
    cuts_scores,
    warm_start_mode,
)
from skfair.reductions._response_threshold import (
    cell_histogram,
    cut_response,
    interval_counts,
    score_bins,
)

# The attribute by which a base learner says that its ``fit`` takes dask collections (X, y
# and sample_weight, partitioned alike) and that its ``predict`` takes in-memory blocks.
FITS_DASK = "__skfair_fits_dask__"
# The hint of the TypeError raised by fit on dask input; {learner} names the base learner.
FIT_ON_DASK = (
    "Each best response refits the base learner ({learner}) on all rows: {learner} does not "
    "say that its fit takes dask collections (a learner whose fit takes dask X, y and "
    "sample_weight, and whose predict takes in-memory blocks, says so with the class "
    "attribute " + FITS_DASK + " = True). Use such a learner, or fit on an in-memory sample "
    "(e.g. ddf.sample(frac=...).compute()); predict and predict_proba then accept dask "
    "collections and run block by block."
)


def fits_dask(estimator):
    """Whether ``estimator`` says that its ``fit`` takes dask collections."""
    return getattr(estimator, FITS_DASK, False) is True


def check_fit_on_dask(reduction, regression):
    """Refuse at once the dask fits that cannot run: an in-memory learner (named), a learner
    without ``sample_weight``, a regressor."""
    name = f"{type(reduction).__name__}.fit"
    estimator = reduction.estimator
    learner = type(estimator).__name__
    if not fits_dask(estimator):
        raise refuse("it needs all rows in memory.", FIT_ON_DASK.format(learner=learner)).error(
            name
        )
    if "sample_weight" not in signature(estimator.fit).parameters:
        raise refuse(
            f"each best response weights the rows, and the fit of {learner} takes no "
            "sample_weight (a weighted resample would need all rows in memory).",
            "Use a learner whose fit takes sample_weight, or fit on an in-memory sample.",
        ).error(name)
    if regression:
        raise refuse(
            "bounded group loss reads each row's loss of every fit, in memory.",
            "Fit a regressor on an in-memory sample; predict then runs block by block.",
        ).error(name)


def dask_data(reduction, X, y, sample_weight, sensitive_features):
    """First pass: the classes, the groups and the weights of the (group, class) cells.

    Returns what :meth:`_BaseReduction._data` returns, with the rows of the table of distinct
    (label, sensitive values) in place of the samples (their summed weights as weights), the
    dask inputs (``inputs``) and the learner's dask X (``X_model``).
    """
    record_input_columns(reduction, X)
    require_y(reduction, y)
    y_table, sensitive_table, weights, table = labels_and_groups(
        reduction, X, y, sample_weight, sensitive_features, weight_squares=True
    )
    if sample_weight is not None and _equal_weights(table):
        # Equal positive weights are no weights, as in memory (check_weights): the learner
        # then gets the cells' gains alone.
        sample_weight, weights = None, table.count.astype(np.float64)
    y_table = vector_1d(y_table)
    check_classification_targets(y_table)
    reduction.classes_, target = np.unique(y_table, return_inverse=True)
    if len(reduction.classes_) > 2:
        raise refuse(
            "with more than two classes a best response gives some rows once per class.",
            "Fit on an in-memory sample; predict then runs block by block.",
        ).error(f"{type(reduction).__name__}.fit")
    sensitive, X_model = resolve_sensitive(
        X, sensitive_features, reduction.sensitive_column, drop=reduction.drop_sensitive
    )
    data = fit_data(X_model, target, sensitive_table, weights)
    squares = table.count if sample_weight is None else table.sums.sum(axis=1)
    data.update(
        inputs=Bunch(
            X=X,
            y=y,
            sensitive=sensitive,
            sample_weight=sample_weight,
            encoding=new_row_encoding(data.groups),
            classes=reduction.classes_,
        ),
        count=table.count,
        n_samples=int(table.count.sum()),
        square_weight=float(np.sum(squares)),
    )
    return data


def fit_data(X_model, target, sensitive, sample_weight):
    """The rows a reduction fits on, in memory or as the table of distinct rows on dask: the
    learner's input, the target (class indices, or values), each row's group code with the
    group labels and encoding (:func:`~skfair._base.group_codes`), and the rows' weights."""
    codes, group_labels, groups = group_codes(sensitive, target.shape[0])
    return Bunch(
        X_model=X_model,
        target=target,
        codes=codes,
        group_labels=group_labels,
        groups=groups,
        sample_weight=sample_weight,
    )


def _equal_weights(table):
    """Whether the weights summed in ``table`` (with their squares) are all one positive
    value: every row's mean weight is the first row's, and its squares sum to mean times
    weight (no spread within the row), to rounding."""
    mean = table.weight / table.count
    return bool(
        mean[0] > 0
        and np.allclose(mean, mean[0], rtol=1e-12, atol=0)
        and np.allclose(table.sums[:, 0], mean[0] * table.weight, rtol=1e-12, atol=0)
    )


@dataclass(frozen=True)
class CellProblem:
    """One best-response fit: the label and the weight (per unit of sample weight) of the
    rows of each (group, class) cell; ``key`` identifies it in the cache, ``label_set``
    holds the labels it gives."""

    cell_label: np.ndarray
    cell_gain: np.ndarray
    key: tuple
    label_set: np.ndarray


class DaskBestResponse(BestResponse):
    """Best responses fitted on the dask collections, each with lazy labels and weights.

    Parameters
    ----------
    estimator : estimator
        The base learner (cloned for each fit); its ``fit`` takes dask collections.
    X : dask collection
        The rows the base learner sees (sensitive columns already dropped).
    inputs : Bunch
        The dask labels, sensitive features and weights, the groups' encoding, the classes.
    cell_weight, cell_count : ndarray of shape (n_groups, n_classes)
        Weight and number of rows of each (group, class) cell.
    fit_params : dict
        Other metadata for the base learner's ``fit``.
    warm_start : {"auto", True, False}
    response_threshold : {"auto", "least_cost", "own"}
    """

    def __init__(
        self,
        estimator,
        X,
        inputs,
        cell_weight,
        cell_count,
        *,
        fit_params,
        warm_start,
        response_threshold="auto",
    ):
        self.estimator = self.learner = estimator
        self.X = self.X_learner = X
        self.prefix = None
        self.inputs = inputs
        self.classes = inputs.classes
        self.cell_weight = cell_weight.ravel()
        self.cell_count = cell_count.ravel()
        self.fit_params = fit_params
        self.weight_parameter = "sample_weight"
        self.warm_start_parameter, self.growth = warm_start_mode(estimator, warm_start)
        self.cuts_scores = cuts_scores(estimator, response_threshold)
        self._start_calls()

    def problem(self, cost):
        reduced = cell_gains(cost, self.cell_weight)
        if isinstance(reduced, int):
            return reduced
        gain, key = reduced
        # Two classes: at most one is cheaper than the other in a cell; the rows of a cell
        # where neither is keep their label, with weight 0 (as in memory).
        positive = gain > 0
        cells = np.arange(gain.shape[0])
        label = np.where(positive.any(axis=1), np.argmax(positive, axis=1), cells % gain.shape[1])
        label_set = self.classes[np.unique(label[self.cell_count > 0])]
        return CellProblem(self.classes[label], gain[cells, label], key, label_set)

    def constant(self, k):
        return Response(None, None, constant=k)

    def _fit_data(self, problem):
        """The dask X, and the rows' labels and weights as lazy arrays (their cell's)."""
        inputs = [self.inputs.y, self.inputs.sensitive, self.inputs.sample_weight]
        common = {"encoding": self.inputs.encoding, "classes": self.classes}
        labels = map_row_blocks(
            _cell_values, inputs, dtype=self.classes.dtype, values=problem.cell_label, **common
        )
        weights = map_row_blocks(
            _cell_values, inputs, values=problem.cell_gain, weighted=True, **common
        )
        return self.X_learner, labels, {**self.fit_params, "sample_weight": weights}

    def _label_set(self, problem, labels):
        return problem.label_set

    def training_outputs(self, learner):
        return None  # the hypothesis's table comes from a pass over the partitions

    def _training_bins(self, learner, method):
        return None  # counted by a pass over the partitions


@dataclass
class DaskProblem(GameData):
    """The game's data on dask collections: what :class:`~skfair.reductions._base.Problem`
    holds in memory, with each hypothesis's outputs replaced by its table."""

    inputs: Bunch
    reduction: object
    n_samples: int
    square_weight: float
    class_counts: dict = field(default_factory=dict)
    indices: dict = field(default_factory=dict)  # hypothesis of each predictor read, by id
    histograms: dict = field(default_factory=dict)  # score histograms read, by predictor id
    last_index: int | None = None
    is_regression: bool = False

    def add_response(self, response, cost, *, own_threshold=False):
        """:meth:`Problem.add_response` with one pass over the partitions per fit: its table,
        or the weight of each cell in each interval of the grid of thresholds of its score."""
        self.last_index = self._add_response(response, cost, own_threshold)
        return self.last_index

    def _add_response(self, response, cost, own_threshold):
        if response.constant is not None:
            return self.constants[response.constant]
        if response.method is None or own_threshold:
            return self.add(response.predictor, None)
        # A response from the oracle's cache is a predictor already read: no second pass.
        read = self.histograms.get(id(response.predictor))
        if read is None:
            read = self._pass(_score_chunk, predictor=response.predictor, method=response.method)
            self.histograms[id(response.predictor)] = read
        histogram, counts = read
        cut, k, predictor, table = cut_response(
            response, histogram, cost, self.oracle.classes, self.moments.constant_table(0).shape
        )
        if k is not None:
            return self.constants[k]
        index = self.hypotheses.add(predictor, table, None)
        positive = counts[cut:].sum()
        self.class_counts.setdefault(index, np.array([counts.sum() - positive, positive]))
        return index

    def add(self, predictor, outputs):
        # A response from the oracle's cache is a predictor already read: no second pass.
        known = self.indices.get(id(predictor))
        if known is not None:
            return known
        table, counts = self._pass(_member_chunk, predictor=predictor)
        index = self.hypotheses.add(predictor, table, None)
        self.class_counts.setdefault(index, counts)
        self.indices[id(predictor)] = index
        return index

    def add_constant(self, predictor, k):
        index = self.hypotheses.add(predictor, self.moments.constant_table(k), None)
        counts = np.zeros(self.moments.n_classes)
        counts[k] = self.n_samples
        self.class_counts.setdefault(index, counts)
        return index

    def default_nu(self):
        """:meth:`Problem.default_nu` from the table of the last response: the 0-1 losses'
        weighted variance is ``error * (1 - error)``."""
        error = self.moments.error(self.hypotheses.tables[self.last_index])
        total = self.moments.total
        size = max(total, total**2 / self.square_weight)
        return 0.5 * np.sqrt(error * (1.0 - error)) / np.sqrt(size)

    def n_decided_classes(self, index):
        return int(np.count_nonzero(self.class_counts[index]))

    def drawn_tables(self, reduction, seeds):
        """The tables of the randomised decisions drawn with each of ``seeds`` (each partition
        drawn as ``predict`` draws it on a dask collection), as stacks: the first seed's in
        one pass (the caller usually stops there), the others' together in a second pass."""
        for batch in (seeds[:1], seeds[1:]):
            if batch:
                (tables,) = self._pass(_draws_chunk, seeds=tuple(batch))
                yield tables

    def _pass(self, chunk, **kwargs):
        dask = import_dask()
        inputs = self.inputs
        return reduce_row_blocks(
            ArraySums(),
            [inputs.X, inputs.y, inputs.sensitive, inputs.sample_weight],
            chunk,
            reduction=dask.delayed(self.reduction),  # sent once, with its members
            moments=dask.delayed(self.moments),
            encoding=inputs.encoding,
            **{k: dask.delayed(v) if k == "predictor" else v for k, v in kwargs.items()},
        )


# --------------------------------------------------------------------------------------------
# block by block


def _codes(sensitive, encoding, n_samples):
    if encoding is None:
        return np.zeros(n_samples, dtype=np.intp)
    return encoding.encode(sensitive, n_samples=n_samples)


def _cell_values(
    y, sensitive, sample_weight, *, row_offset, values, encoding, classes, weighted=False
):
    """``values[cell]`` of each row of a block (times its weight when ``weighted``)."""
    y = as_numpy(y).reshape(-1)
    cells = _codes(sensitive, encoding, y.shape[0]) * len(classes) + np.searchsorted(classes, y)
    out = values[cells]
    if weighted and sample_weight is not None:
        out = out * as_numpy(sample_weight).astype(np.float64).reshape(-1)
    return out


def _rows(X, y, sensitive, sample_weight, reduction, encoding):
    """``(X_model, codes, target, weights)`` of one partition, checked as in memory; None for
    an empty partition."""
    y, weights = check_fit_block(X, y, sample_weight)
    if y.shape[0] == 0:
        return None
    X = check_meta_input(reduction, X, reduction.estimator, reset=False)
    _, X_model = resolve_sensitive(
        X, None, reduction.sensitive_column, drop=reduction.drop_sensitive
    )
    # every label is a class: the classes are the labels of these very partitions
    target = np.searchsorted(reduction.classes_, y)
    return X_model, _codes(sensitive, encoding, y.shape[0]), target, weights


def _member_chunk(
    statistic, X, y, sensitive, sample_weight, *, reduction, moments, encoding, predictor
):
    """A hypothesis's (group, class, prediction) table on one partition, and how many rows
    it gives each class."""
    rows = _rows(X, y, sensitive, sample_weight, reduction, encoding)
    n_classes = moments.n_classes
    if rows is None:
        return statistic.chunk(
            np.zeros((moments.n_groups, n_classes, n_classes)), np.zeros(n_classes)
        )
    X_model, codes, target, weights = rows
    outputs = class_indices(predictor, predictor.predict(X_model), reduction.classes_)
    table = moments.table(codes, target, outputs, weights)
    return statistic.chunk(table, np.bincount(outputs, minlength=n_classes).astype(np.float64))


def _score_chunk(
    statistic, X, y, sensitive, sample_weight, *, reduction, moments, encoding, predictor, method
):
    """The weight of each (group, class) cell in each interval of the grid of thresholds of a
    fit's score on one partition, and the number of rows in each interval."""
    rows = _rows(X, y, sensitive, sample_weight, reduction, encoding)
    n_cells = moments.n_groups * moments.n_classes
    if rows is None:
        cells = bins = np.zeros(0, dtype=np.intp)
        weights = None
    else:
        X_model, codes, target, weights = rows
        cells = codes * moments.n_classes + target
        bins = score_bins(predictor, X_model, method)
    return statistic.chunk(
        cell_histogram(cells, bins, weights, n_cells), interval_counts(bins).astype(np.float64)
    )


def _draws_chunk(statistic, X, y, sensitive, sample_weight, *, reduction, moments, encoding, seeds):
    """The tables of the decisions drawn with each seed on one partition (one batch)."""
    rows = _rows(X, y, sensitive, sample_weight, reduction, encoding)
    n_classes = moments.n_classes
    if rows is None:
        return statistic.chunk(np.zeros((len(seeds), moments.n_groups, n_classes, n_classes)))
    X_model, codes, target, weights = rows
    probability = reduction._mixture_probability(X_model)
    keys = row_keys(X_model, probability[:, 0])
    tables = [
        moments.table(codes, target, choices, weights)
        for choices in draw_choices_by_seed(probability, keys, seeds)
    ]
    return statistic.chunk(np.concatenate(tables))
