"""Bundled real data sets and the papers' simulations.

The real data sets (UCI, CC BY 4.0; see ``skfair/datasets/data/ATTRIBUTION.md``) ship with the
package and load without network access. Each loader returns a :class:`~sklearn.utils.Bunch`
with ``data`` (every feature, the sensitive ones included where the file has them),
``target`` (0/1, 1 the favourable outcome), ``sensitive_features`` (the sensitive attributes as
a separate array or DataFrame), their names, and ``DESCR`` with the citation and caveats.
"""

from skfair.datasets._adult import (
    load_adult,
)
from skfair.datasets._bank_marketing import (
    load_bank_marketing,
)
from skfair.datasets._bias_examples import (
    make_bias_example,
)
from skfair.datasets._german_credit import (
    load_german_credit,
)
from skfair.datasets._madd_simulation import (
    make_madd_simulation,
)

__all__ = [
    "load_adult",
    "load_bank_marketing",
    "load_german_credit",
    "make_bias_example",
    "make_madd_simulation",
]
