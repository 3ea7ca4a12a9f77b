"""``paddle.decomposition`` (Paddle 2.6): rewrites a PIR program's ops into primitive ops. pe has
neither PIR programs nor decompositions (pe_cli/fluid/core_prim.py): each name refuses in one line."""

from ..base.errors import unsupported
from ..fluid.core_prim import PRIM_WHY

__all__ = ["decompose"]

decompose = unsupported("paddle.decomposition.decompose", PRIM_WHY)
