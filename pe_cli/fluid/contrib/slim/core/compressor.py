"""Fluid 1.8's ``contrib.slim.core.compressor``: the Compressor of PaddleSlim's first version. It
trains ``train_program`` (with ``train_optimizer``) epoch by epoch, calls its strategies' hooks
(pruning, quantization, distillation) on the way, evaluates after each epoch and keeps a checkpoint
per epoch under ``checkpoint_path``, from which a later run resumes."""

import logging

import numpy as np

from ....executor import Executor, scope_guard
from ....framework import Program, program_guard, unique_name
from ....io import save_inference_model
from .....base.places import CPUPlace
from .checkpoint import latest_checkpoint, load_checkpoint, read_state, save_checkpoint
from .config import ConfigFactory
from ..graph.executor import SlimGraphExecutor
from ..graph.graph_wrapper import GraphWrapper

__all__ = ["Compressor", "Context"]

_logger = logging.getLogger("pe.slim")


class Context:
    """What strategies see: place, scope, the graphs, the readers, the epoch and batch ids and the
    evaluation results so far (``eval_results``: name -> one value per evaluation)."""

    def __init__(
        self,
        place,
        scope,
        train_graph=None,
        train_reader=None,
        eval_graph=None,
        eval_reader=None,
        teacher_graphs=None,
        train_optimizer=None,
        distiller_optimizer=None,
        search_space=None,
    ):
        self.place, self.scope = place, scope
        self.train_graph, self.train_reader = train_graph, train_reader
        self.eval_graph, self.eval_reader = eval_graph, eval_reader
        self.teacher_graphs = teacher_graphs or []
        self.train_optimizer, self.distiller_optimizer = train_optimizer, distiller_optimizer
        self.search_space = search_space
        self.optimize_graph = None
        self.epoch_id = 0
        self.batch_id = 0
        self.eval_results = {}
        self.skip_training = False
        self.k_v = {}

    def eval_converged(self, metric_name, delta=0.001):
        results = self.eval_results.get(metric_name, [])
        return len(results) >= 2 and abs(results[-1] - results[-2]) / max(abs(results[-2]), 1e-12) < delta

    def run_eval_graph(self, sampled_rate=None, cached_id=0):
        """Runs the eval graph over the whole eval reader: (per-output means, output names)."""
        graph = self.eval_graph
        exe, sums, count = SlimGraphExecutor(self.place), None, 0
        for data in self.eval_reader():
            outs = exe.run(graph, self.scope, data)
            means = [float(np.mean(o)) for o in outs]
            sums = means if sums is None else [a + b for a, b in zip(sums, means)]
            count += 1
        if count == 0:
            raise ValueError("Compressor: eval_reader yielded no batch")
        names = list(graph.out_nodes)
        results = [s / count for s in sums]
        _logger.info("epoch %d eval: %s", self.epoch_id, dict(zip(names, results)))
        return results, names

    def put(self, key, value):
        self.k_v[key] = value

    def get(self, key):
        return self.k_v.get(key)


def _check_pairs(value, what):
    if value is not None and not isinstance(value, (list, tuple, dict)):
        raise AssertionError(f"{what} should be a list of tuple, such as [('image', image.name), ('label', gt.name)]")
    return list(value.items()) if isinstance(value, dict) else value


class Compressor:
    """Fluid 1.8's Compressor; ``config(file)`` reads the strategies, ``run()`` compresses.

    Feed and fetch lists are lists of (key, variable name) pairs; the train fetch list names the
    loss 'loss'. Readers yield batches: lists of sample tuples in feed-list order."""

    def __init__(
        self,
        place,
        scope,
        train_program,
        train_reader=None,
        train_feed_list=None,
        train_fetch_list=None,
        eval_program=None,
        eval_reader=None,
        eval_feed_list=None,
        eval_fetch_list=None,
        eval_func=None,
        save_eval_model=True,
        prune_infer_model=None,
        teacher_programs=[],
        checkpoint_path=None,
        train_optimizer=None,
        distiller_optimizer=None,
        search_space=None,
        log_period=20,
    ):
        train_feed_list = _check_pairs(train_feed_list, "train_feed_list")
        eval_feed_list = _check_pairs(eval_feed_list, "eval_feed_list")
        self.strategies = []
        self.epoch = 0
        self.place = CPUPlace() if place is None else place
        self.scope = scope
        self.train_graph = GraphWrapper(
            train_program, train_feed_list, _check_pairs(train_fetch_list, "train_fetch_list")
        )
        self.eval_graph = GraphWrapper(eval_program, eval_feed_list, _check_pairs(eval_fetch_list, "eval_fetch_list"))
        self.train_reader, self.eval_reader = train_reader, eval_reader
        self.eval_func = eval_func
        self.save_eval_model = save_eval_model
        self.prune_infer_model = prune_infer_model
        self.teacher_graphs = [GraphWrapper(t) for t in teacher_programs]
        self.checkpoint_path = checkpoint_path
        self.train_optimizer, self.distiller_optimizer = train_optimizer, distiller_optimizer
        self.search_space = search_space
        self.log_period = log_period
        self.eval_epoch = 1
        self.init_model = None
        self.context = None

    def _add_strategy(self, strategy):
        self.strategies.append(strategy)
        self.epoch = max(strategy.end_epoch, self.epoch)

    def config(self, config_file):
        """Reads a slim YAML file: its strategies and its ``compressor`` section."""
        factory = ConfigFactory(config_file)
        if not factory.compressor:
            raise ValueError(f"{config_file}: compressor: missing; add a 'compressor' section with 'epoch'")
        self.epoch = factory.compressor["epoch"]
        for strategy in factory.compressor["strategies"]:
            self._add_strategy(strategy)
        for key in ("checkpoint_path", "init_model", "eval_epoch"):
            if key in factory.compressor:
                setattr(self, key, factory.compressor[key])

    def _optimize_graph(self, context):
        """The train program with the optimizer's ops (its new state initialized in the scope)."""
        graph = context.train_graph
        if context.train_optimizer is None:
            return graph
        if "loss" not in graph.out_nodes:
            raise ValueError("Compressor: train_fetch_list must name the loss as ('loss', loss.name)")
        program, startup = graph.program.clone(), Program()
        with program_guard(program, startup), unique_name.guard("train_opt_"):  # the same names every run
            context.train_optimizer.minimize(program.global_block().var(graph.out_nodes["loss"]))
        Executor(context.place).run(startup, scope=context.scope)
        return GraphWrapper(program, graph.in_nodes.items(), graph.out_nodes.items())

    def _programs(self, context):
        return {"optimize": context.optimize_graph.program, "eval": context.eval_graph.program}

    def _load_checkpoint(self, context):
        directory = latest_checkpoint(self.checkpoint_path)
        if directory is None:
            return
        state = read_state(directory)
        context.epoch_id = int(state["epoch_id"]) + 1
        context.eval_results = state.get("eval_results", {})
        for strategy in self.strategies:  # first: a strategy may rebuild programs the values fit
            strategy.restore_from_checkpoint(context)
        load_checkpoint(directory, state, context.scope, context.place, self._programs(context))
        _logger.info("resumed from %s", directory)

    def _save_eval_model(self, context):
        graph = context.eval_graph
        if not self.save_eval_model or graph.program is None or not graph.in_nodes:
            return None
        block = graph.program.global_block()
        fetch = [block.var(n) for n in graph.out_nodes.values()]

        def save(directory):
            with scope_guard(context.scope):
                save_inference_model(
                    directory, list(graph.in_nodes.values()), fetch, Executor(context.place), main_program=graph.program
                )

        return save

    def _save_checkpoint(self, context):
        if self.checkpoint_path:
            directory = save_checkpoint(
                self.checkpoint_path,
                context.epoch_id,
                context.scope,
                self._programs(context),
                context.eval_results,
                self._save_eval_model(context),
            )
            _logger.info("saved checkpoint to %s", directory)

    def _train_one_epoch(self, context):
        if context.skip_training or context.train_reader is None:
            return
        graph = context.optimize_graph
        exe = SlimGraphExecutor(context.place)
        for data in context.train_reader():
            for strategy in self.strategies:
                strategy.on_batch_begin(context)
            outs = exe.run(graph, context.scope, data)
            if context.batch_id % self.log_period == 0:
                values = [round(float(np.mean(o)), 4) for o in outs]
                _logger.info(
                    "epoch:%d; batch_id:%d; %s = %s", context.epoch_id, context.batch_id, list(graph.out_nodes), values
                )
            for strategy in self.strategies:
                strategy.on_batch_end(context)
            context.batch_id += 1
        context.batch_id = 0

    def _eval(self, context):
        if self.eval_func is not None:
            for key, func in self.eval_func.items():
                context.eval_results.setdefault(key, []).append(func(context.eval_graph.program, context.scope))
        elif context.eval_graph.program is not None and context.eval_reader is not None:
            results, names = context.run_eval_graph()
            for name, result in zip(names, results):
                context.eval_results.setdefault(name, []).append(result)

    def run(self):
        """Compresses: the epochs from the latest checkpoint's next one to ``epoch``; returns the
        eval graph (its program holds the compressed model)."""
        context = Context(
            self.place,
            self.scope,
            self.train_graph,
            self.train_reader,
            self.eval_graph,
            self.eval_reader,
            self.teacher_graphs,
            self.train_optimizer,
            self.distiller_optimizer,
            self.search_space,
        )
        self.context = context
        if self.teacher_graphs:
            context.put("teachers", self.teacher_graphs)
        context.optimize_graph = self._optimize_graph(context)
        self._load_checkpoint(context)
        for strategy in self.strategies:
            strategy.on_compression_begin(context)
        for epoch in range(context.epoch_id, self.epoch):
            context.epoch_id = epoch
            for strategy in self.strategies:
                strategy.on_epoch_begin(context)
            self._train_one_epoch(context)
            if self.eval_epoch and epoch % self.eval_epoch == 0:
                self._eval(context)
            for strategy in self.strategies:
                strategy.on_epoch_end(context)
            self._save_checkpoint(context)
        for strategy in self.strategies:
            strategy.on_compression_end(context)
        return context.eval_graph
