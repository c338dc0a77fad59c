"""Votes of ensemble members, Shannon entropy and label stability.

Statistic: for each sample, the number of members voting for each class, shape
(n_samples, n_classes) (one ``np.bincount`` over the joint code ``sample * K + class``); the
entropy in bits of class probabilities over their last axis.

Merging: votes are per sample, so chunks of samples are independent (concatenate them); the
votes of two sets of members on the same samples add up.

References
----------
Virny, "Disparity Performance Dimensions" (Virny 0.6.0 documentation): label stability
``(K f_mode - 1) / (K - 1)`` and the entropy-based total, aleatoric and epistemic
uncertainty.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import entr

from skfair._stats._table import DistinctRows


def entropy(proba):
    """Shannon entropy in bits over the last axis, with 0 log 0 = 0 (no warning)."""
    return entr(proba).sum(axis=-1) / np.log(2)


def label_stability_from_codes(codes, n_classes):
    """LS of integer member labels ``codes`` (n_estimators, n_samples) in range(n_classes)."""
    return label_stability_from_votes(member_votes(codes, n_classes), codes.shape[0])


def label_stability_from_votes(votes, n_members):
    """LS from the votes per (sample, class) of ``n_members`` members (see :func:`member_votes`)."""
    n_classes = votes.shape[1]
    mode_fraction = votes.max(axis=1) / n_members
    return (n_classes * mode_fraction - 1) / (n_classes - 1)


def member_votes(codes, n_classes):
    """Votes per (sample, class), shape (n_samples, n_classes), of member label ``codes``."""
    n_samples = codes.shape[1]
    # One bincount over the joint (sample, class) code counts every vote.
    joint = (np.arange(n_samples) * n_classes + codes).ravel()
    return np.bincount(joint, minlength=n_samples * n_classes).reshape(n_samples, n_classes)


@dataclass(frozen=True)
class GroupMeans:
    """Weighted sums of a per-sample value per group, keyed by the groups' own values, and the
    class labels seen, in two phases.

    :meth:`chunk` takes the rows of one chunk: the group keys, the per-sample values (label
    stability's mode share, an uncertainty), weights, and the distinct member labels of the
    chunk (the class count of label stability depends on all of them); :meth:`merge` adds the
    sums by group (:class:`~skfair._stats._table.DistinctRows`) and joins the labels. The
    per-group means are ``sums / weights``: the group step of the stability and uncertainty
    disparities.
    """

    names: tuple

    def chunk(self, keys, values, sample_weight=None, labels=()):
        table = DistinctRows(self.names).chunk(keys, sample_weight, values=values[:, None])
        return table, frozenset(labels)

    def merge(self, parts):
        tables, labels = zip(*parts, strict=True)
        return DistinctRows(self.names).merge(list(tables)), frozenset().union(*labels)

    def formula(self, merged):
        return merged
