"""``paddle.amp.debugging``: Paddle 2.6.2's AMP debugging tools. The operator statistics are dygraph-only
(Paddle's AssertionError in static mode, as pe gives always); the tensor checker's switches and the
accuracy comparison of dumped runs are refused in one line naming themselves (pe has no NaN/Inf dump of its
kernels' outputs in Paddle's format: pe's own check is ``pe train``'s divergence guard)."""

from enum import Enum

from ...base.errors import unsupported
from .accuracy_compare import compare_accuracy  # noqa: F401
from .auto_cast import dygraph_only

_WHY = "Paddle's tensor checker (FLAGS_check_nan_inf and its dumps) is not in pe; pe train refuses NaN/Inf steps"


class DebugMode(Enum):
    CHECK_NAN_INF_AND_ABORT = 0
    CHECK_NAN_INF = 1
    CHECK_ALL_FOR_OVERFLOW = 2
    CHECK_ALL = 3


TensorCheckerConfig = unsupported("paddle.amp.debugging.TensorCheckerConfig", _WHY)
enable_tensor_checker = unsupported("paddle.amp.debugging.enable_tensor_checker", _WHY)
disable_tensor_checker = unsupported("paddle.amp.debugging.disable_tensor_checker", _WHY)
check_numerics = unsupported("paddle.amp.debugging.check_numerics", _WHY)
check_layer_numerics = unsupported("paddle.amp.debugging.check_layer_numerics", _WHY)


@dygraph_only
def enable_operator_stats_collection():
    """Counts the dtypes of eager ops: dygraph-only."""


@dygraph_only
def disable_operator_stats_collection():
    """Counts the dtypes of eager ops: dygraph-only."""


@dygraph_only
def collect_operator_stats():
    """Counts the dtypes of eager ops: dygraph-only."""
