"""``paddle.fluid.contrib.slim.prune.auto_prune_strategy``: AutoPruneStrategy, pruning ratios searched
by simulated annealing over the Compressor's evaluations (not in pe: one line)."""
from ....unsupported import SLIM, refuse

__all__ = ["AutoPruneStrategy"]
refuse(globals(), "paddle.fluid.contrib.slim.prune.auto_prune_strategy", __all__, SLIM)
