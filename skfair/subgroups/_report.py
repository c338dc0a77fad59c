"""The report of :func:`~skfair.subgroups.find_subgroups`."""

from __future__ import annotations

import math

import numpy as np

from skfair._dask import map_row_blocks, uses_dask
from skfair._utils._compat import install_hint
from skfair.subgroups._encode import feature_columns

# The keys of each subgroup record, in the order of ``to_frame``'s columns.
RECORD_KEYS = (
    "description",
    "conditions",
    "level",
    "n",
    "n_rated",
    "value",
    "rest_value",
    "gap",
    "gap_low",
    "gap_high",
    "score",
    "p_value",
    "q_value",
    "significant",
)
REST = "rest"


class SubgroupReport:
    """The subgroups found by :func:`find_subgroups`, best first.

    A subgroup is a set of conditions on the features (a conjunction). Each record of
    :attr:`subgroups` is a dict with the keys

    - ``conditions``: a tuple of ``(column, value)`` pairs, ``value`` being a category, a bin
      such as ``"(25, 33]"`` (numeric columns binned at quantiles) or None for missing
      values; for ``objective="mdss"`` a tuple of ``(column, values)`` pairs, ``values`` the
      tuple of values kept;
    - ``description``: the conditions as text, e.g. ``"sex = Female & age in (25, 33]"``;
    - ``level``: the number of conditions;
    - ``n``: the number of rows of the subgroup; ``n_rated``: how many of them the metric is
      computed on (its denominator: the positives for a true or false negative rate, the
      negatives for a false positive rate, the predicted positives for the positive predictive
      value, every row for the error and selection rates and the scan);
    - ``value`` and ``rest_value``: the metric in the subgroup and in the rest of the rows;
      ``gap``: their difference, and ``gap_low``, ``gap_high`` its ``1 - alpha`` confidence
      interval (Newcombe's hybrid score interval, from each side's Wilson interval; NaN
      for ``objective="mdss"``);
    - ``score``: what the subgroups are ranked by (for ``objective="gap"`` the lower end of
      the gap's confidence bound in the direction searched, the SliceLine score, or the
      penalised scan statistic);
    - ``p_value``, ``q_value`` and ``significant``: the test of the gap against the rest of
      the rows, its value adjusted for multiple testing (``correction``), and whether it is
      at most ``alpha`` (NaN and False for ``objective="mdss"``, which is not tested).

    Do not create it yourself: :func:`find_subgroups` returns it.

    Parameters
    ----------
    subgroups : list of dict
        The records, best first.
    columns : list
        How each column of the features was coded.
    settings : dict
        The search's settings and totals (``objective``, ``metric``, ``direction``,
        ``alpha``, ``correction``, ``max_level``, ``min_support``, ``n_samples``,
        ``overall_value``, ``n_evaluated``, ``n_tests``).
    codes : ndarray of shape (n_columns, n_samples), default=None
        The codes of the rows searched (in memory), for :meth:`mask` without features.
    cells : list, default=None
        For each record, its conditions as ``(column position, code or codes)`` pairs.

    Attributes
    ----------
    subgroups : list of dict
        The records, best first.
    objective, metric, direction : str
        What was searched.
    n_tests : int
        The number of tests the q-values account for.
    n_evaluated : int
        The number of subgroups scored.
    overall_value : float
        The metric over all rows.

    See Also
    --------
    find_subgroups : Finds the subgroups.
    skfair.plotting.SubgroupDisplay : Plots their gaps.

    References
    ----------
    Benjamini, Y. and Hochberg, Y. (1995). Controlling the false discovery rate. Journal of
    the Royal Statistical Society B 57(1), 289-300 (the q-values).

    Sagadeeva, S. and Boehm, M. (2021). SliceLine: Fast, Linear-Algebra-based Slice Finding
    for ML Model Debugging. SIGMOD '21, 2290-2299 (the slices' score).

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.subgroups import find_subgroups
    >>> rng = np.random.default_rng(0)
    >>> features = {"a": rng.choice(["x", "y"], 2000), "b": rng.choice(["u", "v"], 2000)}
    >>> y_true = rng.integers(0, 2, 2000)
    >>> wrong = (features["a"] == "x") & (features["b"] == "u") & (rng.random(2000) < 0.4)
    >>> y_pred = np.where(wrong, 1 - y_true, y_true)
    >>> report = find_subgroups(y_true, y_pred, features=features, max_level=2, k=2)
    >>> report.subgroups[0]["description"]
    'a = x & b = u'
    >>> int(report.mask(0).sum()) == report.subgroups[0]["n"]
    True
    """

    def __init__(self, subgroups, *, columns, settings, codes=None, cells=None):
        self.subgroups = subgroups
        self.columns = columns
        self.settings = dict(settings)
        self._codes = codes
        self._cells = [() for _ in subgroups] if cells is None else cells

    def __getattr__(self, name):
        settings = self.__dict__.get("settings", {})
        if name in settings:
            return settings[name]
        raise AttributeError(f"'SubgroupReport' object has no attribute {name!r}")

    def __len__(self):
        return len(self.subgroups)

    def __repr__(self):
        head = (
            f"SubgroupReport(objective={self.objective!r}, metric={self.metric!r}, "
            f"direction={self.direction!r}, {len(self)} subgroups, {self.n_tests:,} tests)"
        )
        lines = [head]
        for record in self.subgroups[:5]:
            mark = "*" if record["significant"] else " "
            lines.append(
                f"  {mark} {record['description']}: n={record['n']:,}, value="
                f"{record['value']:.3g} (rest {record['rest_value']:.3g}), score="
                f"{record['score']:.3g}, q={record['q_value']:.2g}"
            )
        return "\n".join(lines)

    def to_frame(self):
        """The records as a DataFrame, one row per subgroup, best first.

        Returns
        -------
        frame : pandas.DataFrame
            The columns ``description``, ``conditions``, ``level``, ``n``, ``n_rated``, ``value``,
            ``rest_value``, ``gap``, ``score``, ``p_value``, ``q_value`` and
            ``significant``.
        """
        try:
            import pandas as pd
        except ImportError as error:  # pragma: no cover - pandas is in the test extra
            raise ImportError(
                f"SubgroupReport.to_frame needs pandas: {install_hint('pandas')}."
            ) from error
        return pd.DataFrame(
            [{key: record[key] for key in RECORD_KEYS} for record in self.subgroups],
            columns=list(RECORD_KEYS),
        )

    def to_dict(self):
        """The report as plain Python values, ready for ``json.dumps``.

        NaN becomes None; conditions become lists of ``{"column": ..., "value": ...}`` (for
        ``objective="mdss"``, ``{"column": ..., "values": [...]}``).

        Returns
        -------
        report : dict
            The settings (``objective``, ``metric``, ``direction``, ``alpha``,
            ``correction``, ``max_level``, ``min_support``, ``n_samples``,
            ``overall_value``, ``n_evaluated``, ``n_tests``), the ``columns`` searched
            (name, kind, number of values, whether missing values are a category) and the
            ``subgroups``, best first, with the keys of :attr:`subgroups`.
        """
        columns = [
            {
                "name": column.name,
                "kind": "categorical" if column.edges is None else "binned",
                "n_values": int(column.n_values),
                "missing": bool(column.missing),
            }
            for column in self.columns
        ]
        subgroups = []
        for record in self.subgroups:
            entry = {key: _plain(record[key]) for key in RECORD_KEYS if key != "conditions"}
            entry["conditions"] = [
                {"column": column, "values": [_plain(v) for v in value]}
                if isinstance(value, tuple)
                else {"column": column, "value": _plain(value)}
                for column, value in record["conditions"]
            ]
            subgroups.append(entry)
        settings = {key: _plain(value) for key, value in self.settings.items()}
        return {**settings, "columns": columns, "subgroups": subgroups}

    def mask(self, index=0, features=None):
        """Which rows belong to subgroup ``index``.

        Parameters
        ----------
        index : int, default=0
            Position of the subgroup in :attr:`subgroups`.
        features : array-like, DataFrame or dict, default=None
            Rows to test, with the columns searched (matched by name, or by position for an
            array). None: the rows searched (in-memory input only). A dask collection gives
            a lazy dask array.

        Returns
        -------
        mask : ndarray of bool of shape (n_samples,)
            True for the rows of the subgroup.
        """
        cells = self._cells[index]
        if features is not None and uses_dask(features):
            return map_row_blocks(
                lambda block, row_offset: self.mask(index, block), [features], dtype=bool
            )
        codes = self._column_codes(cells, features)
        if not cells:
            return np.ones(self._n_rows(features), dtype=bool)
        mask = None
        for position, code in cells:
            member = np.isin(codes[position], code)
            mask = member if mask is None else mask & member
        return mask

    def membership(self, index=0, features=None):
        """Subgroup ``index`` as a sensitive feature: its description, or ``"rest"``.

        Each row is labelled with the subgroup's description when it belongs to it, with
        ``"rest"`` otherwise. Pass it as ``sensitive_features`` to
        :class:`~skfair.metrics.MetricTable`, the thresholds of :mod:`skfair.postprocessing`
        or the reductions, to compare, repair or constrain the subgroup against the rest.

        Parameters
        ----------
        index : int, default=0
            Position of the subgroup in :attr:`subgroups`.
        features : array-like, DataFrame or dict, default=None
            Rows to label (see :meth:`mask`); None: the rows searched.

        Returns
        -------
        labels : ndarray of str of shape (n_samples,)
            The subgroup's description or ``"rest"``.
        """
        mask = self.mask(index, features)
        description = self.subgroups[index]["description"]
        if uses_dask(mask):
            return mask.map_blocks(_labels, description, dtype=object)
        return _labels(mask, description)

    # ----------------------------------------------------------------------------------------

    def _column_codes(self, cells, features):
        """Codes of the columns a subgroup's conditions use, by position."""
        needed = sorted({position for position, _ in cells})
        if features is None:
            if self._codes is None:
                raise ValueError(
                    "The rows searched were a dask collection and are not kept: pass them "
                    "(or other rows) as features=."
                )
            return {position: self._codes[position] for position in needed}
        columns, names = feature_columns(features)
        if not needed:
            return {}
        by_name = dict(zip(names, columns))
        codes = {}
        for position in needed:
            encoder = self.columns[position]
            if encoder.name in by_name:
                column = by_name[encoder.name]
            elif len(columns) == len(self.columns):
                column = columns[position]
            else:
                raise ValueError(
                    f"features has no column '{encoder.name}'; its columns are {names}."
                )
            codes[position] = encoder.encode(column)
        return codes

    def _n_rows(self, features):
        if features is None:
            return self.n_samples
        columns, _ = feature_columns(features)
        return np.shape(columns[0])[0]


def _labels(mask, description):
    return np.where(np.asarray(mask, dtype=bool), description, REST).astype(object)


def _plain(value):
    """A JSON-ready Python value: numpy scalars unwrapped, NaN as None."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return str(value)


def describe(conditions):
    """``"a = x & b in (1, 2]"`` for the conditions (``"all rows"`` for none)."""
    if not conditions:
        return "all rows"
    parts = []
    for column, value in conditions:
        if isinstance(value, tuple):
            shown = ", ".join("missing" if v is None else str(v) for v in value)
            parts.append(f"{column} in {{{shown}}}")
        elif value is None:
            parts.append(f"{column} is missing")
        elif isinstance(value, str) and value[:1] in "[(" and value.endswith("]"):
            parts.append(f"{column} in {value}")
        else:
            parts.append(f"{column} = {value}")
    return " & ".join(parts)


def build_report(found, columns, settings, codes=None):
    """The :class:`SubgroupReport` of a search's records."""
    subgroups, cells = [], []
    for record in found.records:
        conditions, record_cells = _conditions(record, columns)
        subgroups.append(
            {
                "description": describe(conditions),
                "conditions": conditions,
                "level": len(conditions),
                **{key: record[key] for key in RECORD_KEYS[RECORD_KEYS.index("n") :]},
            }
        )
        cells.append(record_cells)
    settings = {
        **settings,
        "n_samples": found.n_rows,
        "overall_value": found.overall_value,
        "n_evaluated": found.n_evaluated,
        "n_tests": found.n_tests,
    }
    return SubgroupReport(subgroups, columns=columns, settings=settings, codes=codes, cells=cells)


def _conditions(record, columns):
    if "values" in record:  # MDSS: sets of values per column
        conditions, cells = [], []
        for position, values in enumerate(record["values"]):
            if values is None:
                continue
            labels = columns[position].labels
            conditions.append((columns[position].name, tuple(labels[v] for v in values)))
            cells.append((position, np.asarray(values)))
        return tuple(conditions), tuple(cells)
    combination = record["combination"]
    dims = tuple(columns[j].n_values for j in combination)
    codes = np.unravel_index(record["key"], dims) if combination else ()
    conditions = tuple(
        (columns[j].name, columns[j].labels[int(code)]) for j, code in zip(combination, codes)
    )
    cells = tuple((j, int(code)) for j, code in zip(combination, codes))
    return conditions, cells
