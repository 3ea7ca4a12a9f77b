"""``paddle.fluid.contrib.slim.prune.auto_prune_strategy``: AutoPruneStrategy, as Fluid 1.8.5's: the
pruning ratios of the matched parameters (tokens: hundredths) are searched by a controller (searcher's
SAController), each candidate kept only where it removes between ``min_ratio`` and ``max_ratio`` of the
eval graph's FLOPs. From ``start_epoch``, every ``retrain_epoch`` epochs the train graph is pruned by
the current ratios (trained, if ``retrain_epoch``), evaluated, and put back, the metric rewarding
the controller; at ``end_epoch`` the best ratios prune the model for good."""

import functools
import logging
import re

from ....log_helper import get_logger
from .graph_pruning import restore
from .prune_strategy import PruneStrategy

__all__ = ["AutoPruneStrategy"]

_logger = get_logger(__name__, logging.INFO, fmt="%(asctime)s-%(levelname)s: %(message)s")
_MAX_SEARCH = 100  # Fluid's bisection of the uniform ratio can loop forever; pe stops here


class AutoPruneStrategy(PruneStrategy):
    def __init__(
        self,
        pruner=None,
        controller=None,
        start_epoch=0,
        end_epoch=10,
        min_ratio=0.5,
        max_ratio=0.7,
        metric_name="top1_acc",
        pruned_params="conv.*_weights",
        retrain_epoch=0,
        uniform_range=None,
        init_tokens=None,
    ):
        super().__init__(pruner, start_epoch, end_epoch, 0.0, metric_name, pruned_params)
        self._max_ratio, self._min_ratio = max_ratio, min_ratio
        self._controller, self._metric_name = controller, metric_name
        self._pruned_param_names = []
        self._retrain_epoch, self._uniform_range, self._init_tokens = retrain_epoch, uniform_range, init_tokens
        self._current_tokens = None
        self._param_backup, self._param_shape_backup = {}, {}

    def on_compression_begin(self, context):
        self._pruned_param_names = [
            p.name() for p in context.eval_graph.all_parameters() if re.match(self.pruned_params, p.name())
        ]
        self._current_tokens = self._init_tokens if self._init_tokens is not None else self._get_init_tokens(context)
        self._range_table = (
            [round(self._uniform_range, 2) / 0.01] * len(self._pruned_param_names)
            if self._uniform_range is not None
            else list(self._current_tokens)
        )
        _logger.info("init tokens: %s; range_table: %s", self._current_tokens, self._range_table)
        self._controller.reset(
            self._range_table, self._current_tokens, functools.partial(self._constrain_func, context=context)
        )

    def _pruned_flops(self, context, ratios):
        """The share of the eval graph's FLOPs pruning by ``ratios`` removes (the graph put back)."""
        flops, shapes = context.eval_graph.flops(), {}
        self._prune_parameters(
            context.eval_graph,
            context.scope,
            self._pruned_param_names,
            ratios,
            context.place,
            only_graph=True,
            param_shape_backup=shapes,
        )
        context.eval_graph.update_groups_of_conv()
        pruned = 1 - float(context.eval_graph.flops()) / flops
        restore([context.eval_graph.program], context.scope, context.place, shape_backup=shapes)
        return pruned

    def _constrain_func(self, tokens, context=None):
        pruned = self._pruned_flops(context, self._tokens_to_ratios(tokens))
        ok = self._min_ratio <= pruned <= self._max_ratio
        _logger.info("%s try [%s]; flops: -%s", "Success" if ok else "Failed", tokens, pruned)
        return ok

    def _get_init_tokens(self, context):
        return self._ratios_to_tokens(self._get_uniform_ratios(context))

    def _ratios_to_tokens(self, ratios):
        return [int(ratio / 0.01) for ratio in ratios]

    def _tokens_to_ratios(self, tokens):
        return [token * 0.01 for token in tokens]

    def _get_uniform_ratios(self, context):
        """The one ratio for every parameter that removes the middle of [min_ratio, max_ratio] of the
        FLOPs (bisection, within 0.01)."""
        low, high, target, ratios = 0.0, 1.0, (self._min_ratio + self._max_ratio) / 2, None
        for _ in range(_MAX_SEARCH):
            if not low < high:
                break
            ratio = (low + high) / 2
            ratios = [ratio] * len(self._pruned_param_names)
            pruned = self._pruned_flops(context, ratios)
            if abs(pruned - target) < 1e-2:
                break
            low, high = (low, ratio) if pruned > target else (ratio, high)
        _logger.info("Get ratios: %s", [round(r, 2) for r in ratios])
        return ratios

    def _in_search(self, context, offset, last):
        return self.start_epoch <= context.epoch_id <= last and (
            self._retrain_epoch == 0 or (context.epoch_id - self.start_epoch + offset) % self._retrain_epoch == 0
        )

    def _programs(self, context):
        return [context.optimize_graph.program, context.eval_graph.program]

    def _prune_by(self, context, tokens):
        self._prune_parameters(
            context.optimize_graph,
            context.scope,
            self._pruned_param_names,
            self._tokens_to_ratios(tokens),
            context.place,
            param_backup=self._param_backup,
            param_shape_backup=self._param_shape_backup,
            also=[context.eval_graph.program],
        )
        context.optimize_graph.update_groups_of_conv()
        context.eval_graph.update_groups_of_conv()

    def _put_back(self, context):
        restore(self._programs(context), context.scope, context.place, self._param_backup, self._param_shape_backup)

    def on_epoch_begin(self, context):
        if self._in_search(context, 0, self.end_epoch):
            self._prune_by(context, self._current_tokens)
            context.skip_training = self._retrain_epoch == 0

    def on_epoch_end(self, context):
        if self._in_search(context, 1, self.end_epoch - 1):
            self._controller.update(self._current_tokens, context.eval_results[self._metric_name][-1])
            self._current_tokens = self._controller.next_tokens()
            self._put_back(context)
        elif context.epoch_id == self.end_epoch:  # the best ratios, for the training that follows
            self._put_back(context)
            self._prune_by(context, self._controller._best_tokens)
            self._param_backup, self._param_shape_backup = {}, {}
            context.skip_training = False
