"""Fluid 1.8's ``contrib.slim.prune.prune_strategy``: PruneStrategy (the base, with Fluid's
``_prune_parameters`` over pe's pruning plan: graph_pruning.py), UniformPruneStrategy and
SensitivePruneStrategy."""

import copy
import logging
import os
import pickle
import re

import numpy as np

from ..core.strategy import Strategy
from .channel_pruning import prune_conv_filters
from .graph_pruning import prune, pruned_idx, restore
from .pruner import StructurePruner
from .....base.atomic_file import atomic_write
from .....io.pickle_data import Refused, parse_data

__all__ = ["SensitivePruneStrategy", "UniformPruneStrategy", "PruneStrategy"]

_logger = logging.getLogger("pe.slim")


class PruneStrategy(Strategy):
    """Base of the pruning strategies: the parameters named by the ``pruned_params`` regular
    expression are pruned by ``pruner`` at ``start_epoch``."""

    def __init__(
        self,
        pruner=None,
        start_epoch=0,
        end_epoch=0,
        target_ratio=0.5,
        metric_name=None,
        pruned_params="conv.*_weights",
    ):
        super().__init__(start_epoch, end_epoch)
        self.pruner = pruner if pruner is not None else StructurePruner({"*": 0}, {"*": "l1_norm"})
        self.target_ratio = target_ratio
        self.metric_name = metric_name
        self.pruned_params = pruned_params
        self.pruned = False

    def _params(self, context):
        program = context.optimize_graph.program
        names = [
            p.name
            for p in program.global_block().all_parameters()
            if re.fullmatch(self.pruned_params, p.name) and len(p.shape) == 4
        ]
        if not names:
            raise ValueError(f"{type(self).__name__}: no 4-D parameter matches pruned_params {self.pruned_params!r}")
        return names

    def _eval_graph(self, context, sampled_rate=None, cached_id=0):
        """The metric ``metric_name`` of the eval graph on the eval reader."""
        results, names = context.run_eval_graph(sampled_rate, cached_id)
        return np.mean(results[list(names).index(self.metric_name)])

    def _prune_parameters(
        self,
        graph,
        scope,
        params,
        ratios,
        place,
        lazy=False,
        only_graph=False,
        param_backup=None,
        param_shape_backup=None,
        also=(),
    ):
        """Prunes each of ``params`` (names) by its ratio of filters in ``graph`` (and the programs
        ``also``): for real, ``lazy`` (zeroed) or ``only_graph`` (shapes). ``pruned_list``: the names
        pruned along their first axis, and along another; the backups get what changed."""
        assert len(params) == len(ratios)
        mode = "lazy" if lazy else "graph" if only_graph else "real"
        programs = [graph.program] + [p for p in also if p is not None]
        self.pruned_list = [[], []]
        for name, ratio in zip(params, ratios):
            plan = prune(
                programs,
                scope,
                place,
                name,
                pruned_idx(self.pruner, scope, name, ratio),
                mode,
                param_backup,
                param_shape_backup,
            )
            for var, axis, _ in plan.tensors:
                self.pruned_list[0 if axis == 0 else 1].append(var)

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


def _cubic(x, y):
    """The least-squares cubic a*x^3 + b*x^2 + c*x + d through the points (Fluid fits it with scipy's
    leastsq from (10, 10, 10, 10); the problem is linear, so this is its minimum)."""
    return np.linalg.lstsq(np.vander(np.asarray(x, "float64"), 4), np.asarray(y, "float64"), rcond=None)[0]


class SensitivePruneStrategy(PruneStrategy):
    """Prunes each matched parameter by its own ratio: each one's sensitivity (the metric lost when
    it alone loses delta_rate, 2*delta_rate, ... of its filters, zeroed) is measured on the eval graph
    (and kept in ``sensitivities_file``), a cubic is fitted to each, and the loss level whose ratios
    remove ``target_ratio`` of the FLOPs is searched; ``num_steps`` such prunings, the first at
    ``start_epoch``, each later one once the metric converges."""

    _MAX_SEARCH = 100  # Fluid's bisection of the loss level can loop forever; pe stops here at most

    def __init__(
        self,
        pruner=None,
        start_epoch=0,
        end_epoch=0,
        delta_rate=0.20,
        target_ratio=0.5,
        metric_name="top1_acc",
        pruned_params="conv.*_weights",
        sensitivities_file="./sensitivities.data",
        sensitivities={},
        num_steps=1,
        eval_rate=None,
    ):
        super().__init__(pruner, start_epoch, end_epoch, target_ratio, metric_name, pruned_params)
        self.delta_rate = delta_rate
        self.pruned_list = []
        self.sensitivities, self.sensitivities_file = sensitivities, sensitivities_file
        self.num_steps, self.eval_rate = num_steps, eval_rate
        self.pruning_step = 1 - pow((1 - target_ratio), 1.0 / self.num_steps)

    def _save_sensitivities(self, sensitivities, sensitivities_file):
        atomic_write(sensitivities_file, pickle.dumps(sensitivities))

    def _load_sensitivities(self, sensitivities_file):
        """The sensitivities saved in the file (Fluid's pickle, read without unpickling), or {}."""
        sensitivities = {}
        if sensitivities_file and os.path.exists(sensitivities_file):
            with open(sensitivities_file, "rb") as f:
                try:
                    sensitivities = parse_data(f.read())
                except Refused as e:
                    raise ValueError(
                        f"SensitivePruneStrategy: {sensitivities_file}: not a sensitivities file ({e})"
                    ) from None
        for param in sensitivities:
            sensitivities[param]["pruned_percent"] = [round(p, 2) for p in sensitivities[param]["pruned_percent"]]
        return sensitivities

    def _compute_sensitivities(self, context):
        """{param: {'pruned_percent': [ratios], 'loss': [metric lost], 'size': filters}}, adding what
        the file lacks."""
        cached_id = np.random.randint(1000)
        path = (
            self.sensitivities_file
            if self.start_epoch == context.epoch_id
            else f"{self.sensitivities_file}.epoch{context.epoch_id}"
        )
        sensitivities = self._load_sensitivities(path)
        for param in context.eval_graph.all_parameters():
            if re.match(self.pruned_params, param.name()) and param.name() not in sensitivities:
                sensitivities[param.name()] = {"pruned_percent": [], "loss": [], "size": param.shape()[0]}
        metric = None
        for param in list(sensitivities):
            ratio = self.delta_rate
            while ratio < 1:
                ratio = round(ratio, 2)
                if ratio not in sensitivities[param]["pruned_percent"]:
                    metric = self._eval_graph(context, self.eval_rate, cached_id) if metric is None else metric
                    self._measure(context, sensitivities, path, param, ratio, metric, cached_id)
                ratio += self.delta_rate
        return sensitivities

    def _measure(self, context, sensitivities, path, param, ratio, metric, cached_id):
        backup = {}
        self._prune_parameters(
            context.eval_graph, context.scope, [param], [ratio], context.place, lazy=True, param_backup=backup
        )
        loss = float(metric - self._eval_graph(context, self.eval_rate, cached_id))
        _logger.info("pruned param: %s; %s; loss=%s", param, ratio, loss)
        for brother in self.pruned_list[0]:
            if re.match(self.pruned_params, brother):
                entry = sensitivities.setdefault(brother, {"pruned_percent": [], "loss": []})
                entry["pruned_percent"].append(ratio)
                entry["loss"].append(loss)
        self._save_sensitivities(sensitivities, path)
        for name, value in backup.items():
            context.scope.find_var(name).get_tensor().set(value, context.place)

    def _ratios_at(self, coefficients, loss):
        """Each parameter's ratio where its cubic reaches ``loss`` (the last root in (0, 1), as Fluid
        takes it; a parameter without one keeps the ratio found before it)."""
        ratios, selected = [], None
        for param, coefficient in coefficients.items():
            coefficient = copy.deepcopy(coefficient)
            coefficient[-1] -= loss
            for root in np.roots(coefficient):
                if np.isreal(root) and 0 < root < 1:
                    selected = min(root.real, 1)
            if selected is None:
                raise ValueError(
                    f"SensitivePruneStrategy: no pruning ratio of {param} loses {loss:.4f} of "
                    f"{self.metric_name}; measure its sensitivities over more ratios (delta_rate)"
                )
            ratios.append(selected)
        return ratios

    def _get_best_ratios(self, context, sensitivities, target_ratio):
        """(params, ratios) removing ``target_ratio`` of the eval graph's FLOPs (within 0.015), or, where
        whole filters cannot come that close, the ratios tried that came closest (the first of equals).

        Fluid bisects the loss level until a pruning lands within 0.015 and returns the last one tried,
        looping forever where none can. Near a level where one more filter goes, the FLOPs jump (0.24
        to 0.48 of this net's in tests/fluid/contrib/test_prune_strategies.py), and which side a level
        falls on is decided by float rounding (an AVX2 and an AVX-512 GEMM disagreed): the last one
        tried was either. The closest one is the same on every host."""
        coefficients, max_loss, min_loss = {}, 0.0, 0.0
        for param in sensitivities:
            losses = np.array([0] * 5 + sensitivities[param]["loss"])
            coefficients[param] = _cubic([0] * 5 + sensitivities[param]["pruned_percent"], losses)
            max_loss = np.max([max_loss, np.max(losses)])
        flops, best, best_gap = context.eval_graph.flops(), [], None
        for _ in range(self._MAX_SEARCH):
            loss = (max_loss + min_loss) / 2
            if not min_loss < loss < max_loss:  # the interval cannot be halved any more
                break
            ratios = self._ratios_at(coefficients, loss)
            shapes = {}
            self._prune_parameters(
                context.eval_graph,
                context.scope,
                list(sensitivities),
                ratios,
                context.place,
                only_graph=True,
                param_shape_backup=shapes,
            )
            pruned_flops = 1 - float(context.eval_graph.flops()) / flops
            restore([context.eval_graph.program], context.scope, context.place, shape_backup=shapes)
            _logger.info(
                "loss %.4f: ratios %s prune %.4f of the FLOPs", loss, [round(r, 3) for r in ratios], pruned_flops
            )
            gap = abs(pruned_flops - target_ratio)
            if best_gap is None or gap < best_gap:
                best, best_gap = ratios, gap
            if gap < 0.015:
                break
            max_loss, min_loss = (loss, min_loss) if pruned_flops > target_ratio else (max_loss, loss)
        return list(sensitivities), best

    def _current_pruning_target(self, context):
        if self.num_steps <= 0:
            return None
        if self.start_epoch == context.epoch_id or context.eval_converged(self.metric_name, 0.005):
            self.num_steps -= 1
            return self.pruning_step
        return None

    def on_epoch_begin(self, context):
        ratio = self._current_pruning_target(context)
        if ratio is None:
            return
        params, ratios = self._get_best_ratios(context, self._compute_sensitivities(context), ratio)
        size, flops = context.eval_graph.numel_params(), context.eval_graph.flops()
        self._prune_parameters(
            context.optimize_graph, context.scope, params, ratios, context.place, also=[context.eval_graph.program]
        )
        context.optimize_graph.update_groups_of_conv()
        context.eval_graph.update_groups_of_conv()
        _logger.info(
            "pruned size: %.3f; pruned flops: %.3f; metric after pruning: %.2f",
            1 - float(context.eval_graph.numel_params()) / size,
            1 - float(context.eval_graph.flops()) / flops,
            self._eval_graph(context),
        )
