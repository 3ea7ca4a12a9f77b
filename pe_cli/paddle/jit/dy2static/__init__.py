"""``paddle.jit.dy2static``: of Paddle 2.6's dygraph-to-static translator, the argument helpers of
``utils`` its op tests import (pe's ``to_static`` changes nothing: pe_cli/paddle/jit/api.py)."""

from . import utils  # noqa: F401
