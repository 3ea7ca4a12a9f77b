"""Fluid 1.8's ``contrib.slim.prune.prune_strategy``: UniformPruneStrategy."""
import logging
import re

from ..core.strategy import Strategy
from .channel_pruning import prune_conv_filters
from .pruner import StructurePruner
from ....unsupported import SLIM, refuse

__all__ = ["SensitivePruneStrategy", "UniformPruneStrategy", "PruneStrategy"]

_logger = logging.getLogger("pe.slim")


class PruneStrategy(Strategy):
    """Base of the pruning strategies: the parameters named by the ``pruned_params`` regular
    expression are pruned by ``pruner`` at ``start_epoch``."""

    def __init__(self, pruner=None, start_epoch=0, end_epoch=0, target_ratio=0.5, metric_name=None,
                 pruned_params="conv.*_weights"):
        super().__init__(start_epoch, end_epoch)
        self.pruner = pruner if pruner is not None else StructurePruner({"*": 0}, {"*": "l1_norm"})
        self.target_ratio = target_ratio
        self.metric_name = metric_name
        self.pruned_params = pruned_params
        self.pruned = False

    def _params(self, context):
        program = context.optimize_graph.program
        names = [p.name for p in program.global_block().all_parameters()
                 if re.fullmatch(self.pruned_params, p.name) and len(p.shape) == 4]
        if not names:
            raise ValueError(f"{type(self).__name__}: no 4-D parameter matches pruned_params "
                             f"{self.pruned_params!r}")
        return names

    def _prune(self, context, ratio):
        programs = [context.optimize_graph.program]
        if context.eval_graph.program is not None:
            programs.append(context.eval_graph.program)
        for name in self._params(context):
            weight = context.scope.find_var(name).get_tensor()
            idx = self.pruner.cal_pruned_idx(name, weight, ratio, axis=0)
            before = programs[0].global_block().var(name).shape[0]
            prune_conv_filters(programs, context.scope, context.place, name, idx)
            _logger.info("pruned %s: %d -> %d filters", name, before, before - len(idx))
        self.pruned = True


class UniformPruneStrategy(PruneStrategy):
    """Prunes every matched conv by the same ratio, ``target_ratio`` of its filters (ranked by the
    pruner's criterion), at the beginning of ``start_epoch``. Fluid searches the ratio that removes
    ``target_ratio`` of the FLOPs; pe prunes that ratio of filters (see docs/COMPAT.md)."""

    def on_epoch_begin(self, context):
        if context.epoch_id == self.start_epoch and not self.pruned:
            self._prune(context, self.target_ratio)

    def restore_from_checkpoint(self, context):
        self.pruned = context.epoch_id > self.start_epoch


# SensitivePruneStrategy prunes each parameter by the ratio its measured sensitivity (the metric's
# loss when that parameter alone is pruned, over a range of ratios) allows; pe does not measure them.
refuse(globals(), "paddle.fluid.contrib.slim.prune.prune_strategy", ["SensitivePruneStrategy"], SLIM)
