"""Fluid 1.8's ``contrib.slim.distillation.distillation_strategy``: from ``start_epoch`` the Compressor
trains a graph holding the student and the teachers (``teacher_programs``; their variables keep their
names, so name them apart from the student's, and their inputs are the student's feed variables of
the same name) on the student's loss plus the distillers' losses, with ``distiller_optimizer``; the
teachers' parameters (already in the scope) are read, never trained. After ``end_epoch`` the plain
optimized student graph comes back."""

import logging

from ....executor import Executor
from ....framework import Program, program_guard, unique_name
from ..graph.graph_wrapper import GraphWrapper
from ..core.strategy import Strategy

__all__ = ["DistillationStrategy"]

_logger = logging.getLogger("pe.slim")


def _merge(program, teacher):
    """Copies the teacher's variables (parameters as plain persistable variables) and forward ops into
    ``program``."""
    block, source = program.global_block(), teacher.global_block()
    for var in source.vars.values():
        if not block.has_var(var.name):
            block.create_var(
                name=var.name,
                shape=var.shape,
                dtype=var.dtype,
                lod_level=var.lod_level,
                persistable=var.persistable,
                stop_gradient=True,
            )
    for op in source.ops:
        block.append_op(
            op.type,
            {k: list(v) for k, v in op.inputs.items()},
            {k: list(v) for k, v in op.outputs.items()},
            op.all_attrs(),
        )


class DistillationStrategy(Strategy):
    def __init__(self, distillers=None, start_epoch=0, end_epoch=0):
        super().__init__(start_epoch, end_epoch)
        self.distillers = distillers or []

    def _distillation_graph(self, context):
        if context.distiller_optimizer is None:
            raise ValueError("DistillationStrategy: the Compressor needs a distiller_optimizer")
        train = context.train_graph
        graph = GraphWrapper(train.program.clone(), train.in_nodes.items(), train.out_nodes.items())
        for teacher in context.teacher_graphs:
            _merge(graph.program, teacher.program)
        for distiller in self.distillers:
            graph = distiller.distiller_loss(graph)
        startup = Program()
        with program_guard(graph.program, startup), unique_name.guard("distiller_opt_"):
            context.distiller_optimizer.minimize(graph.program.global_block().var(graph.out_nodes["loss"]))
        Executor(context.place).run(startup, scope=context.scope)
        return graph

    def on_epoch_begin(self, context):
        if context.epoch_id == self.start_epoch:
            context.put("distillation_backup_optimize_graph", context.optimize_graph)
            context.optimize_graph = self._distillation_graph(context)
            _logger.info("distillation from epoch %d", context.epoch_id)

    def on_epoch_end(self, context):
        if context.epoch_id == self.end_epoch:
            context.optimize_graph = context.get("distillation_backup_optimize_graph")

    def restore_from_checkpoint(self, context):
        if self.start_epoch < context.epoch_id <= self.end_epoch:
            context.put("distillation_backup_optimize_graph", context.optimize_graph)
            context.optimize_graph = self._distillation_graph(context)
