"""Fluid 1.8's ``contrib.slim.quantization.quantization_strategy``: quantization-aware training in
the Compressor, over pe's ``contrib.QuantizeTranspiler``. At ``start_epoch`` the optimized program
and the eval program get fake quantize/dequantize ops (they share the scales, which the eval
program reads and never updates); at the end of ``end_epoch`` the eval program is frozen
(``freeze_program``) and saved as a float model and an int8 model where paths are given."""

import logging

from ....executor import Executor, scope_guard
from ....framework import Program
from ....io import save_inference_model
from ...quantize import QuantizeTranspiler
from ..core.strategy import Strategy

__all__ = ["QuantizationStrategy"]

_logger = logging.getLogger("pe.slim")


class QuantizationStrategy(Strategy):
    """Quantization-aware training from ``start_epoch``; freezing and saving at ``end_epoch``.
    ``mobile_model_save_path`` is accepted and refused when set (pe writes no paddle-mobile model)."""

    def __init__(
        self,
        start_epoch=0,
        end_epoch=0,
        float_model_save_path=None,
        mobile_model_save_path=None,
        int8_model_save_path=None,
        activation_bits=8,
        weight_bits=8,
        activation_quantize_type="abs_max",
        weight_quantize_type="abs_max",
        save_in_nodes=None,
        save_out_nodes=None,
    ):
        super().__init__(start_epoch, end_epoch)
        if mobile_model_save_path is not None:
            raise ValueError(
                "QuantizationStrategy: mobile_model_save_path: pe writes no paddle-mobile model; "
                "use float_model_save_path or int8_model_save_path"
            )
        self.float_model_save_path = float_model_save_path
        self.mobile_model_save_path = mobile_model_save_path
        self.int8_model_save_path = int8_model_save_path
        self.activation_bits, self.weight_bits = activation_bits, weight_bits
        self.activation_quantize_type = activation_quantize_type
        self.weight_quantize_type = weight_quantize_type
        self.save_in_nodes, self.save_out_nodes = save_in_nodes, save_out_nodes
        self._transpiler()  # checks the quantize types now

    def _transpiler(self):
        return QuantizeTranspiler(
            weight_bits=self.weight_bits,
            activation_bits=self.activation_bits,
            activation_quantize_type=self.activation_quantize_type,
            weight_quantize_type=self.weight_quantize_type,
        )

    def _transpile(self, context):
        exe = Executor(context.place)
        eval_program = context.eval_graph.program
        for program in filter(None, (context.optimize_graph.program, eval_program)):
            startup = Program()
            self._transpiler().training_transpile(program, startup)
            exe.run(startup, scope=context.scope)
        if eval_program is not None:
            for op in eval_program.global_block().ops:
                if op.type.startswith("fake_quantize_") and op.has_attr("is_test"):
                    op._set_attr("is_test", True)  # reads the scales training learns
            eval_program._bump()

    def on_epoch_begin(self, context):
        if context.epoch_id == self.start_epoch:
            self._transpile(context)
            _logger.info("quantization-aware training from epoch %d", context.epoch_id)

    def restore_from_checkpoint(self, context):
        if context.epoch_id > self.start_epoch:
            self._transpile(context)

    def on_epoch_end(self, context):
        if context.epoch_id != self.end_epoch or context.eval_graph.program is None:
            return
        transpiler, program = self._transpiler(), context.eval_graph.program
        transpiler.freeze_program(program, context.place, scope=context.scope)
        self._save(context, program, self.float_model_save_path)
        if self.int8_model_save_path:
            int8 = program.clone()
            transpiler.convert_to_int8(int8, context.place, scope=context.scope)
            self._save(context, int8, self.int8_model_save_path)

    def _save(self, context, program, path):
        if not path:
            return
        graph = context.eval_graph
        feeds = list(self.save_in_nodes or graph.in_nodes.values())
        block = program.global_block()
        fetch = [block.var(n) for n in (self.save_out_nodes or graph.out_nodes.values())]
        with scope_guard(context.scope):
            save_inference_model(path, feeds, fetch, Executor(context.place), main_program=program)
        _logger.info("saved the quantized model to %s", path)
