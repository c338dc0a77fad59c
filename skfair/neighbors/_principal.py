"""Principal axes of the points: the frame in which the exact engines build their trees."""

import numpy as np

from skfair._utils._compat import one_blas_thread


class PrincipalFrame:
    """The centred points and their principal axes, computed once for every engine.

    Centring and an orthonormal change of basis leave every distance unchanged up to rounding;
    the engines only use these coordinates to *select* candidates (the kernel on the original
    rows decides), with :attr:`row_error` as the margin for that rounding.
    """

    def __init__(self, Z):
        n_features = Z.shape[1]
        # One small product: BLAS threads would only contend (and stall under load).
        with one_blas_thread():
            self.centred = Z - Z.mean(axis=0)
            _, vectors = np.linalg.eigh(self.centred.T @ self.centred)
        self.axes = vectors[:, ::-1]
        self.radius = float(np.sqrt(np.einsum("ij,ij->i", self.centred, self.centred).max()))
        # A rotated row ``fl(c V)`` is within ``n_features * eps * |c|`` of ``c V`` per
        # coordinate (inner products of length n_features with unit columns), so within
        # ``n_features ** 1.5 * eps * radius`` in norm; the centring and the orthonormality of
        # ``V`` add a few ulps more. Four times that, as a margin.
        self.row_error = 4 * (n_features**1.5 + 4) * np.finfo(np.float64).eps * self.radius

    def coordinates(self, n_axes=None):
        """The centred points in the basis of the ``n_axes`` leading principal axes."""
        axes = self.axes if n_axes is None else self.axes[:, :n_axes]
        with one_blas_thread():
            return self.centred @ axes
