"""feed and fetch (Fluid 1.8's ops of these names; kernels in kernels/<device>/feed_fetch.py): how a
program Fluid saved (``__model__``) or built names its inputs and outputs. ``feed`` gives Out the
``col``-th value of the feed holder X (a FEED_MINIBATCH variable: the run's feeds in order), ``fetch``
puts X at index ``col`` of the fetch holder Out (FETCH_LIST). The executors run a program holding
them as Fluid's does: its feed ops' outputs must be the run's feeds and its fetch ops' inputs the
run's fetch list, which they then read and write directly (pe_cli/executor/feed_fetch_ops.py)."""

from ..kernels.cpu import feed_fetch as cpu_feed_fetch
from ..shapes import feed_fetch as metas
from .define import Structured, register


def _infer_feed(ctx):
    """Out keeps the shape and dtype its variable was declared with: the feed gives its value."""


register(
    "feed",
    kernel_module="feed_fetch",
    inputs=["X"],
    outputs=["Out"],
    attrs={"col": 0},
    infer=_infer_feed,
    lod="drop",
    traits=("feeds_the_run",),
    structured=Structured(meta=metas.feed_meta, cpu=cpu_feed_fetch.feed_out, python=True),
    doc="Out = X[col], the col-th value held by the feed holder X (with its LoD).",
)
register(
    "fetch",
    kernel_module="feed_fetch",
    inputs=["X"],
    outputs=["Out"],
    attrs={"col": 0},
    infer=_infer_feed,
    lod="drop",
    traits=("fetches_the_run",),
    structured=Structured(meta=metas.fetch_meta, cpu=cpu_feed_fetch.fetch_out, python=True),
    doc="Out[col] = X: the value goes to index col of the fetch holder Out.",
)
