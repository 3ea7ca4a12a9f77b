"""``paddle.static.amp.debugging``: the operator statistics of mixed precision, which pe does not collect."""

from ....base.errors import unsupported

__all__ = ["collect_operator_stats"]

collect_operator_stats = unsupported(
    "paddle.static.amp.debugging.collect_operator_stats",
    "pe trains in float32 and keeps no float16 operator statistics",
)
