"""Random projection directions and the paper's default number of candidates."""

import numpy as np

from skfair._utils._compat import Integral, Interval, validate_params
from skfair._utils._random import check_random_state

_POSITIVE_INT = Interval(Integral, 1, None, closed="left")


@validate_params(
    {
        "n_features": [_POSITIVE_INT],
        "m1": [_POSITIVE_INT],
        "n_e": [_POSITIVE_INT],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def draw_projections(n_features, *, m1=25, n_e=2, random_state=None):
    """Draw ``m1`` sets of ``n_e`` orthonormal projection directions (paper, footnote 5).

    Each repetition draws a standard normal ``(n_features, n_e)`` matrix and keeps the ``Q``
    factor of its thin QR decomposition with the signs fixed by ``diag(R)``: the columns are
    then distributed as the first ``n_e`` columns of a Haar-random orthogonal matrix (the
    reference code's uniform-[0, 1) Gram-Schmidt vectors are not). Repetitions are drawn in
    order from one generator, so the draws for ``m1=10`` are a prefix of those for ``m1=20``
    with the same seed.

    Parameters
    ----------
    n_features : int
        Dimension of the point vectors (label column included).
    m1 : int, default=25
        Number of repetitions.
    n_e : int, default=2
        Orthonormal directions per repetition, clamped to ``n_features``.
    random_state : int, RandomState instance or None, default=None
        Seed of the draws.

    Returns
    -------
    projections : ndarray of shape (m1, min(n_e, n_features), n_features)
        Unit vectors, orthonormal within each repetition.

    See Also
    --------
    nearest_other_group : Uses these directions for ``method="approx"``.

    References
    ----------
    Y. Bian, Y. Luo and P. Xu, "Approximating Discrimination Within Models When Faced With
    Several Non-Binary Sensitive Attributes", arXiv:2408.06099, 2024, footnote 5.

    F. Mezzadri, "How to generate random matrices from the classical compact groups", Notices of
    the AMS 54(5), 592-604, 2007 (the sign correction of the QR factor).

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.neighbors import draw_projections
    >>> W = draw_projections(4, m1=3, n_e=2, random_state=0)
    >>> W.shape
    (3, 2, 4)
    >>> bool(np.allclose(W[0] @ W[0].T, np.eye(2)))
    True
    """
    rng = check_random_state(random_state)
    n_e = min(n_e, n_features)
    projections = np.empty((m1, n_e, n_features))
    for j in range(m1):
        q, r = np.linalg.qr(rng.standard_normal((n_features, n_e)))
        signs = np.sign(np.diag(r))
        signs[signs == 0] = 1.0
        projections[j] = (q * signs).T
    return projections


def default_m2(n_samples):
    """``ceil(2 * log10(n))``, the paper's number of candidates per side.

    Computed exactly as the number of decimal digits of ``n**2 - 1`` (at least 1), which equals
    ``ceil(log10(n**2))`` without floating-point doubt at powers of 10.

    Examples
    --------
    >>> from skfair.neighbors._projections import default_m2
    >>> [default_m2(n) for n in (118, 1000, 30162, 6167, 4010)]
    [5, 6, 9, 8, 8]
    """
    return max(1, len(str(int(n_samples) ** 2 - 1)))
