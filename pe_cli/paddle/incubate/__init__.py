"""``paddle.incubate``: the names of Paddle 2.6's incubating API that static programs use:
``layers`` (Fluid 1.8's contrib layers and Paddle's batch_fc, pow2_decay_with_linear_warmup) and
``optimizer`` (the static-graph optimizer wrappers, LookAhead, ModelAverage); the graph operators
(``graph_send_recv``, ``graph_reindex``, ``graph_sample_neighbors``, ``segment_*``: graph_operators.py); and
Paddle 1.8.5's ``hapi`` (its DistributedBatchSampler and colour transforms)."""

from . import hapi, layers, optimizer  # noqa: F401
from .optimizer import LookAhead, ModelAverage  # noqa: F401
from .graph_operators import (  # noqa: F401
    graph_khop_sampler,
    graph_reindex,
    graph_sample_neighbors,
    graph_send_recv,
    segment_max,
    segment_mean,
    segment_min,
    segment_sum,
)

__all__ = ["LookAhead", "ModelAverage", "graph_send_recv", "graph_khop_sampler", "graph_sample_neighbors"]
__all__ += ["graph_reindex", "segment_sum", "segment_mean", "segment_max", "segment_min"]
