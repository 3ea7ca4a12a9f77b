"""Fluid 1.8's ``contrib.QuantizeTranspiler``: quantization-aware training by rewriting a program.

- ``training_transpile(program, startup_program)``, on a program whose backward and optimizer ops are
  already appended (after ``minimize``): every input of each conv2d, depthwise_conv2d and mul goes
  through a fake_quantize op and a fake_dequantize_max_abs op (ops/quantization.py), and their grad ops
  read the dequantized values too, so the forward pass sees the error int8 will make while the
  gradients still reach the float weights (``w@GRAD`` is unchanged: the quantization is
  straight-through). Parameters use ``weight_quantize_type`` and ``weight_bits``, other inputs the
  activation's; shared inputs are quantized once.
- ``freeze_program(program, place, fuse_bn=False, scope=None)``, on an inference program transpiled
  the same way: each weight's quantize/dequantize pair goes, the weight in the scope becomes its
  integers round(w * (2^(bits-1)-1) / max|w|) (still float), the activations' dequantize ops go (their
  quantize ops stay), and one fake_dequantize_max_abs after each quantized op maps its output back
  with max_range = (2^(wbits-1)-1) * (2^(abits-1)-1) / max|w| and the activation's scale. ``fuse_bn``
  first folds conv2d + batch_norm into the float weights (as InferenceTranspiler).
- ``convert_to_int8(program, place, scope=None)``: each weight a quantized op reads gets an int8 copy
  ``<name>.int8`` in the scope, which the op then names.

As Fluid's, freezing reads the weight's scale from max|w| under 'abs_max' and from the scale
variable otherwise, and a moving or windowed activation scale is what training left in the scope."""

import collections

import numpy as np

from ....executor.scope import global_scope
from ....framework import Program, default_main_program, default_startup_program, program_guard, unique_name
from ....layers.helper import LayerHelper
from ....layers.learning_rate_scheduler import autoincreased_step_counter
from ....training.initializer import ConstantInitializer
from ....training.param_attr import ParamAttr
from ....transpiler.inference import InferenceTranspiler

__all__ = ["QuantizeTranspiler"]

_QUANTIZABLE_OP_TYPES = ("conv2d", "depthwise_conv2d", "mul")
_QUANT_TYPES = ("abs_max", "range_abs_max", "moving_average_abs_max")
_FAKE_QUANT_OPS = tuple(f"fake_quantize_{t}" for t in _QUANT_TYPES)
_SUFFIXES = (".quantized.dequantized", ".quantized", ".dequantized", ".scale")


def _original_var_name(name):
    """The variable a quantized, dequantized or scale variable was made from."""
    for suffix in _SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _bins(bits):
    return (1 << (bits - 1)) - 1


def _quantize_values(x, scale, bits):
    """Fluid's quant(): round(x / scale * (2^(bits-1)-1)), halves to even as numpy's."""
    return np.round(x / scale * _bins(bits))


def _check_program(program, what):
    if not isinstance(program, Program):
        raise TypeError(f"QuantizeTranspiler.{what}: program should be a Program, got {type(program).__name__}")


class QuantizeTranspiler:
    def __init__(
        self,
        weight_bits=8,
        activation_bits=8,
        activation_quantize_type="abs_max",
        weight_quantize_type="abs_max",
        window_size=10000,
        moving_rate=0.9,
    ):
        for what, value in (
            ("weight_quantize_type", weight_quantize_type),
            ("activation_quantize_type", activation_quantize_type),
        ):
            if value not in _QUANT_TYPES:
                raise ValueError(
                    f"Unknown {what}: {value!r}. It can only be 'abs_max' or 'range_abs_max' or "
                    f"'moving_average_abs_max'."
                )
        self.weight_bits = weight_bits
        self.activation_bits = activation_bits
        self.weight_quantize_type = weight_quantize_type
        self.activation_quantize_type = activation_quantize_type
        self.window_size = window_size
        self.moving_rate = moving_rate
        self.helper = LayerHelper(self.__class__.__name__)
        self.fake_quant_op_types = list(_FAKE_QUANT_OPS)
        self.fake_dequant_op_types = ["fake_dequantize_max_abs"]
        self.is_test = None
        self.global_step = None

    # -- training ------------------------------------------------------------------------------------
    def training_transpile(self, program=None, startup_program=None):
        """Rewrites ``program`` in place for simulated quantization (see the module's docstring)."""
        self.is_test = False
        program = default_main_program() if program is None else program
        startup_program = default_startup_program() if startup_program is None else startup_program
        _check_program(program, "training_transpile")
        params = {p.name for p in program.global_block().iter_parameters()}
        grad_types = {f"{t}_grad" for t in _QUANTIZABLE_OP_TYPES}
        with program_guard(program, startup_program):
            if "range_abs_max" in (self.weight_quantize_type, self.activation_quantize_type):
                self.global_step = autoincreased_step_counter()
            for block in program.blocks:
                dequantized = collections.OrderedDict()
                for op in list(block.ops):
                    if op.type in _QUANTIZABLE_OP_TYPES:
                        self._transpile_forward(block, op, params, dequantized)
                    elif op.type in grad_types:
                        self._transpile_backward(op, dequantized)
        program._bump()

    def _transpile_forward(self, block, op, params, dequantized):
        idx = block.ops.index(op)
        for name in op.input_arg_names:
            if name not in dequantized:
                var = block.var(name)
                is_param = name in params
                bits = self.weight_bits if is_param else self.activation_bits
                kind = self.weight_quantize_type if is_param else self.activation_quantize_type
                quant_var, scale = self._insert_quant_op(block, idx, var, bits, kind)
                dequantized[name] = self._insert_dequant_op(block, idx + 1, quant_var, scale, bits)
            op._rename_input(name, dequantized[name].name)

    @staticmethod
    def _transpile_backward(op, dequantized):
        renamed = [name for name in op.input_arg_names if name in dequantized]
        if not renamed:
            raise ValueError(f"There is no dequanted inputs for op {op.type}.")
        for name in renamed:
            op._rename_input(name, dequantized[name].name)

    def _like(self, block, var, name):
        return block.create_var(name=name, shape=var.shape, dtype=var.dtype, lod_level=var.lod_level)

    def _scale_parameter(self, var):
        scale = self.helper.create_parameter(
            attr=ParamAttr(name=f"{var.name}.scale", initializer=ConstantInitializer(0.001), trainable=False),
            shape=[1],
            dtype=var.dtype,
        )
        scale.stop_gradient = True
        return scale

    def _state(self, prefix, var, shape, value):
        state = self.helper.create_global_variable(
            name=unique_name.generate(prefix), persistable=True, dtype=var.dtype, shape=shape
        )
        self.helper.set_variable_initializer(state, ConstantInitializer(value))
        return state

    def _insert_quant_op(self, block, idx, var, bits, kind):
        """Inserts the fake_quantize op of ``kind`` before op ``idx``: (its output, its scale)."""
        quant_var = self._like(block, var, f"{var.name}.quantized")
        attrs = {"bit_length": bits}
        if kind == "abs_max":
            scale = block.create_var(name=f"{var.name}.scale", shape=[1], dtype=var.dtype)
            ins, outs = {"X": var}, {"Out": quant_var, "OutScale": scale}
        else:
            scale = self._scale_parameter(var)
            ins, outs = {"X": var, "InScale": scale}, {"Out": quant_var, "OutScale": scale}
            attrs["is_test"] = self.is_test
        if kind == "range_abs_max":
            attrs["window_size"] = self.window_size
            if not self.is_test:
                scales = self._state("scales", var, [self.window_size], 0.0)
                ins.update(Iter=self.global_step, InScales=scales)
                outs["OutScales"] = scales
        elif kind == "moving_average_abs_max":
            attrs["moving_rate"] = self.moving_rate
            if not self.is_test:
                state, accum = self._state("state", var, [1], 1.0), self._state("accum", var, [1], 1.0)
                ins.update(InState=state, InAccum=accum)
                outs.update(OutState=state, OutAccum=accum)
        block._insert_op(idx, f"fake_quantize_{kind}", ins, outs, attrs)
        return quant_var, scale

    def _insert_dequant_op(self, block, idx, var, scale, bits):
        out = self._like(block, var, f"{var.name}.dequantized")
        block._insert_op(
            idx, "fake_dequantize_max_abs", {"X": var, "Scale": scale}, {"Out": out}, {"max_range": float(_bins(bits))}
        )
        return out

    # -- inference -------------------------------------------------------------------------------------
    def freeze_program(self, program, place, fuse_bn=False, scope=None):
        """Folds the fake quantization of a transpiled inference program (see the module's docstring)."""
        self.is_test = True
        scope = global_scope() if scope is None else scope
        program = default_main_program() if program is None else program
        _check_program(program, "freeze_program")
        if fuse_bn:
            _QuantizedBNFuse().transpile(program, place, scope)
        freezer = _Freezer(self, program, place, scope)
        for block in program.blocks:
            freezer.freeze_block(block)
        self._remove_unused_var(program)
        program._bump()

    def convert_to_int8(self, program, place, scope=None):
        """Gives each weight of a quantized op an int8 copy ``<name>.int8``, which the op reads."""
        scope = global_scope() if scope is None else scope
        program = default_main_program() if program is None else program
        _check_program(program, "convert_to_int8")
        global_block = program.global_block()
        renamed = {}
        for block in program.blocks:
            for op in block.ops:
                if op.type not in _QUANTIZABLE_OP_TYPES:
                    continue
                for name in op.input_arg_names:
                    var = block.var(name)
                    if not var.persistable:
                        continue
                    if name not in renamed:
                        renamed[name] = f"{name}.int8"
                        global_block.create_parameter(renamed[name], list(var.shape), "int8")
                        values = np.array(scope.find_var(name).get_tensor())
                        scope.var(renamed[name]).get_tensor().set(values.astype(np.int8), place)
                    op._rename_input(name, renamed[name])
        self._remove_unused_var(program)
        program._bump()

    @staticmethod
    def _remove_unused_var(program):
        for block in program.blocks:
            used = {n for op in block.ops for n in op.input_arg_names + op.output_arg_names}
            for name in [n for n in block.vars if n not in used]:
                block._remove_var(name)


class _Freezer:
    """freeze_program's walk over a block: the renames and scales it carries from op to op."""

    def __init__(self, transpiler, program, place, scope):
        self.t, self.place, self.scope = transpiler, place, scope
        self.persistable = {v.name for v in program.list_vars() if v.persistable}

    def _load(self, name):
        return np.array(self.scope.find_var(name).get_tensor())

    def freeze_block(self, block):
        self.in_rename, self.out_rename, self.scales = {}, {}, {}
        for op in list(block.ops):
            for name in op.input_arg_names:
                if name in self.out_rename:
                    op._rename_input(name, self.out_rename[name])
            if op.type in _FAKE_QUANT_OPS:
                self._fold_quantize(block, op)
            elif op.type == "fake_dequantize_max_abs":
                self._remove(block, op)
            elif op.type in _QUANTIZABLE_OP_TYPES:
                self._dequantize_output(block, op)

    def _fold_quantize(self, block, op):
        name = op.input("X")[0]
        if name not in self.persistable:
            self.scales[name] = block.var(op.output("OutScale")[0])
            return
        if self.t.weight_quantize_type == "abs_max":
            scale = float(np.max(np.abs(self._load(name))))
        else:
            scale = float(self._load(op.output("OutScale")[0]).reshape(-1)[0])
        self.scales[name] = scale
        self._remove(block, op)
        weight = self._load(name)
        values = _quantize_values(weight, scale, self.t.weight_bits).astype(weight.dtype)
        self.scope.find_var(name).get_tensor().set(values, self.place)

    def _remove(self, block, op):
        out, src = op.output("Out")[0], op.input("X")[0]
        self.in_rename[out] = self.in_rename.get(src, src)
        block._remove_op(block.ops.index(op))

    def _dequantize_output(self, block, op):
        max_range, scale_var = None, None
        for name in op.input_arg_names:
            if name in self.in_rename:
                op._rename_input(name, self.in_rename[name])
            scale = self.scales[_original_var_name(name)]
            if _original_var_name(name) in self.persistable:
                max_range = _bins(self.t.weight_bits) * _bins(self.t.activation_bits) / scale
            else:
                scale_var = scale
        if len(op.output_arg_names) != 1:
            raise ValueError(f"Only support one output, but op {op.type} has more than one output.")
        out = block.var(op.output_arg_names[0])
        dequantized = block.create_var(
            name=f"{out.name}.dequantized", shape=out.shape, dtype=out.dtype, lod_level=out.lod_level
        )
        block._insert_op(
            block.ops.index(op) + 1,
            "fake_dequantize_max_abs",
            {"X": out, "Scale": scale_var},
            {"Out": dequantized},
            {"max_range": float(max_range)},
        )
        self.out_rename[out.name] = dequantized.name


class _QuantizedBNFuse(InferenceTranspiler):
    """InferenceTranspiler's conv2d + batch_norm folding on a quantization-transpiled program: the conv
    reads ``w.quantized.dequantized``, so the fold reads and rewrites ``w`` itself (as Fluid's
    BNFuseTranspiler), which the weight's quantize op then quantizes."""

    def _load(self, name):
        return super()._load(_original_var_name(name))

    def _replace(self, block, op, slot, value):
        name = _original_var_name(op.input(slot)[0])
        self.scope.var(name).get_tensor().set(value, self.place)
