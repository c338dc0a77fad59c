"""Per-group ROC tables: distinct scores with the weight of positives and negatives at each.

Statistic: for each group, its distinct scores in decreasing order with the total weight of
positive and of negative rows at each (:class:`ScoreBlocks`). Every point of a group's ROC
curve, its upper hull and the expected rates of any threshold rule are functions of this
table, so it is the sufficient statistic of the group thresholds (Hardt, Price & Srebro 2016).

Two phases (:class:`ScoreLabelTable`): a chunk's table is one sort of its rows by group and
decreasing score and a sum over the runs of equal (group, score); tables merge by the same
sort and sum over their blocks, so rows matched by their score (never by position) add up
whatever the chunking. The table has at most one block per distinct (group, score): exact for
scores of few distinct values, bounded by a grid of scores otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from skfair._stats._table import TableTooLarge


@dataclass(frozen=True)
class ScoreBlocks:
    """Distinct (group, score) values with the weight of positives and negatives at each.

    Blocks are sorted by group, then by decreasing score; the blocks of group ``g`` are
    ``slice(group_starts[g], group_starts[g + 1])``.
    """

    scores: np.ndarray
    positive: np.ndarray
    negative: np.ndarray
    group_starts: np.ndarray

    def group(self, g):
        """``(scores, positive weights, negative weights)`` of group ``g``, scores decreasing."""
        part = slice(self.group_starts[g], self.group_starts[g + 1])
        return self.scores[part], self.positive[part], self.negative[part]


def score_blocks(scores, positive, weights, codes, n_groups):
    """Aggregate the weight of positives and negatives at each distinct score of each group.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,)
        Finite scores; higher means more likely positive.
    positive : ndarray of bool of shape (n_samples,)
        Whether the sample is positive.
    weights : ndarray of shape (n_samples,)
        Non-negative sample weights. Rows of weight 0 are left out.
    codes : ndarray of int of shape (n_samples,)
        Group code of each sample, in ``range(n_groups)``.
    n_groups : int

    Returns
    -------
    ScoreBlocks
    """
    keep = weights > 0
    if not keep.all():
        scores, positive, weights, codes = scores[keep], positive[keep], weights[keep], codes[keep]
    if scores.shape[0] == 0:
        empty = np.zeros(0)
        return ScoreBlocks(empty, empty, empty, np.zeros(n_groups + 1, dtype=np.intp))
    order, starts, block_scores, group_starts = _sorted_blocks(scores, codes, n_groups)
    weights, positive = weights[order], positive[order]
    positive_weight = np.add.reduceat(np.where(positive, weights, 0.0), starts)
    total_weight = np.add.reduceat(weights, starts)
    return ScoreBlocks(
        scores=block_scores,
        positive=positive_weight,
        negative=total_weight - positive_weight,
        group_starts=group_starts,
    )


def _sorted_blocks(scores, codes, n_groups):
    """The rows' order by code then decreasing score, the starts of the blocks of equal
    (code, score) in that order, each block's score, and where each group's blocks start."""
    order = np.argsort(-scores)  # ties need no order: they are pooled into one block
    # Then stably by group: a radix sort for small integer codes.
    order = order[np.argsort(codes[order].astype(_narrow(n_groups)), kind="stable")]
    scores, codes = scores[order], codes[order]
    new_block = np.empty(scores.shape[0], dtype=bool)
    new_block[:1] = True
    np.not_equal(scores[1:], scores[:-1], out=new_block[1:])
    new_block[1:] |= codes[1:] != codes[:-1]
    starts = np.flatnonzero(new_block)
    return order, starts, scores[starts], np.searchsorted(codes[starts], np.arange(n_groups + 1))


def _aggregate(scores, codes, positive, negative, n_groups):
    """Blocks of equal (code, score) of weighted rows, sorted by code then decreasing score."""
    order, starts, block_scores, group_starts = _sorted_blocks(scores, codes, n_groups)
    if starts.size == 0:
        empty = np.zeros(0)
        return ScoreBlocks(empty, empty, empty, np.zeros(n_groups + 1, dtype=np.intp))
    return ScoreBlocks(
        scores=block_scores,
        positive=np.add.reduceat(positive[order], starts),
        negative=np.add.reduceat(negative[order], starts),
        group_starts=group_starts,
    )


def _narrow(n_groups):
    """The narrowest unsigned type for group codes (numpy radix-sorts those)."""
    return next(t for t in (np.uint8, np.uint16, np.uint32, np.intp) if n_groups <= np.iinfo(t).max)


@dataclass(frozen=True)
class ScoreTable:
    """A merged :class:`ScoreBlocks` and the smallest positive row weight seen."""

    blocks: ScoreBlocks
    smallest_weight: float


@dataclass(frozen=True)
class ScoreLabelTable:
    """The per-group ROC table in two phases.

    Parameters
    ----------
    n_groups : int
        Number of groups; rows carry codes in ``range(n_groups)``.
    max_rows : int or None, default=None
        Largest number of blocks allowed in a chunk's table and after a merge; beyond it
        :class:`~skfair._stats._table.TableTooLarge` names the size and ``hint``.
    hint : str, default=""
        What to do instead.
    """

    n_groups: int
    max_rows: int | None = None
    hint: str = ""

    def chunk(self, scores, positive, weights, codes):
        """The table of one chunk's rows (weights None: each row weighs 1)."""
        weights = np.ones(scores.shape[0]) if weights is None else weights
        present = weights[weights > 0]
        smallest = float(present.min()) if present.size else np.inf
        table = ScoreTable(score_blocks(scores, positive, weights, codes, self.n_groups), smallest)
        self._check_size(table, "one chunk")
        return table

    def merge(self, tables):
        """Tables added up: blocks of equal (group, score) pooled, their weights summed."""
        tables = list(tables)
        if len(tables) == 1:
            return tables[0]
        parts = [t.blocks for t in tables]
        codes = np.concatenate(
            [np.repeat(np.arange(self.n_groups), np.diff(b.group_starts)) for b in parts]
        )
        merged = ScoreTable(
            _aggregate(
                np.concatenate([b.scores for b in parts]),
                codes,
                np.concatenate([b.positive for b in parts]),
                np.concatenate([b.negative for b in parts]),
                self.n_groups,
            ),
            min(t.smallest_weight for t in tables),
        )
        self._check_size(merged, f"{len(tables)} chunks merged")
        return merged

    def formula(self, table):
        """The merged table."""
        return table

    def _check_size(self, table, where):
        n_rows = table.blocks.scores.shape[0]
        if self.max_rows is not None and n_rows > self.max_rows:
            raise TableTooLarge(
                f"The table of distinct (group, score) rows reached {n_rows:,} rows ({where}), "
                f"more than the {self.max_rows:,} kept in memory: the scores are (nearly) all "
                f"distinct, so the table grows with the data. {self.hint}".rstrip()
            )
