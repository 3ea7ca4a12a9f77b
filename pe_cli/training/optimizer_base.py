"""The optimizers' base class, ``Optimizer`` (learning rate, accumulators, regularization and clipping,
``minimize`` = ``backward`` + ``apply_optimize``), with the checks and the persistable variables the
optimizers of pe_cli/training/optimizer.py, optimizer_adaptive.py and averaging.py share."""

import abc
import numbers

from . import clip, regularizer
from .backward import append_backward
from .initializer import ConstantInitializer
from ..base.errors import PeError
from ..framework import default_main_program, default_startup_program, unique_name
from ..framework.source import built_like
from ..framework.variable import Variable
from ..base.dims import numel


def check_number(owner, name, value, lo=None, hi=None, lo_open=False, hi_open=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{owner}: {name} must be a number, got {value!r}")
    value = float(value)
    bad_lo = lo is not None and (value <= lo if lo_open else value < lo)
    bad_hi = hi is not None and (value >= hi if hi_open else value > hi)
    if bad_lo or bad_hi:
        lo_s = "" if lo is None else f"{'(' if lo_open else '['}{lo}"
        hi_s = "" if hi is None else f"{hi}{')' if hi_open else ']'}"
        expect = (
            f"in {lo_s}, {hi_s}"
            if lo is not None and hi is not None
            else (f"{'>' if lo_open else '>='} {lo}" if lo is not None else f"{'<' if hi_open else '<='} {hi}")
        )
        raise PeError(f"{owner}: {name}={value} is out of range; expected {expect}")
    return value


class Optimizer(abc.ABC):
    type = None

    def __init__(self, learning_rate, parameter_list=None, regularization=None, grad_clip=None, name=None):
        owner = type(self).__name__
        if isinstance(learning_rate, Variable):
            if learning_rate.shape is not None and int(numel(learning_rate.shape)) not in (1, -1):
                raise PeError(
                    f"{owner}: a learning_rate Variable must hold one value, "
                    f"'{learning_rate.name}' has shape {list(learning_rate.shape)}"
                )
        elif isinstance(learning_rate, bool) or not isinstance(learning_rate, numbers.Real):
            raise TypeError(f"{owner}: learning_rate must be a float or a Variable (a schedule), got {learning_rate!r}")
        else:
            learning_rate = check_number(owner, "learning_rate", learning_rate, lo=0.0)
        if regularization is not None and not hasattr(regularization, "append_decay"):
            raise TypeError(
                f"{owner}: regularization must be a regularizer (fluid.regularizer.L2Decay(...)), "
                f"got {regularization!r}"
            )
        if grad_clip is not None and not hasattr(grad_clip, "_static_clip"):
            raise TypeError(
                f"{owner}: grad_clip must be a gradient clip (fluid.clip.GradientClipByNorm(...)), got {grad_clip!r}"
            )
        self._learning_rate = learning_rate
        self._parameter_list = list(parameter_list) if parameter_list is not None else None
        self.regularization = regularization
        self._grad_clip = grad_clip
        self._name = name
        self._lr_vars = {}  # program -> the global learning-rate variable
        self._accumulators = {}  # state -> {param name: Variable}, as Fluid's
        self._startup = None  # the startup program of the current minimize()

    # -- learning rate -----------------------------------------------------------------------
    def _global_learning_rate(self, program=None):
        if isinstance(self._learning_rate, Variable):
            return self._learning_rate
        if program is None:
            program = default_main_program()
        var = self._lr_vars.get(program)
        if var is None:
            var = self._lr_vars[program] = persistable_var(
                program, unique_name.generate("learning_rate"), [1], "float32", self._learning_rate, self._startup
            )
        return var

    def _param_learning_rate(self, param, program):
        lr = self._global_learning_rate(program)
        scale = param.optimize_attr.get("learning_rate", 1.0)
        if scale == 1.0:
            return lr
        block = program.global_block()
        with program._lr_schedule_guard(is_with_opt=True):
            out = block.create_var(
                name=unique_name.generate(f"{param.name}.lr"), shape=[1], dtype=lr.dtype, stop_gradient=True
            )
            block.append_op("scale", {"X": [lr]}, {"Out": [out]}, {"scale": float(scale)})
        return out

    def _create_param_lr(self, param_and_grad):
        """Fluid's name: the learning-rate variable of ``param_and_grad``'s parameter."""
        param = param_and_grad[0]
        return self._param_learning_rate(param, param.block.program)

    # -- state ----------------------------------------------------------------------------------
    def _add_accumulator(self, state, param, fill_value=0.0, shape=None, dtype=None):
        """A persistable state variable of ``param`` (``fc_0.w_0_velocity_0``), filled with
        ``fill_value`` by the startup program. ``_accumulators`` is Fluid's: {state: {param name:
        variable}}; an optimizer given another program makes that program's own."""
        program = param.block.program
        var = self._accumulators.get(state, {}).get(param.name)
        if var is None or var.block.program is not program:
            prefix = f"{self._name}_{state}" if self._name else state
            name = unique_name.generate(f"{param.name}_{prefix}")
            var = persistable_var(
                program,
                name,
                shape if shape is not None else param.shape,
                dtype or param.dtype,
                fill_value,
                self._startup,
            )
            self._accumulators.setdefault(state, {})[param.name] = var
        return var

    def _get_accumulator(self, state, param):
        var = self._accumulators.get(state, {}).get(param.name)
        if var is None or var.block.program is not param.block.program:
            raise PeError(f"{type(self).__name__}: no accumulator {state!r} for parameter '{param.name}'")
        return var

    def _create_accumulators(self, block, params):
        """Creates every state variable the update op of each parameter needs."""

    # -- the update -----------------------------------------------------------------------------
    @abc.abstractmethod
    def _append_optimize_op(self, block, param, grad, lr):
        """Appends the update op of one parameter and returns it."""

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None, callbacks=None):
        parameter_list = parameter_list if parameter_list is not None else self._parameter_list
        return append_backward(loss, parameter_list, no_grad_set, callbacks)

    def apply_gradients(self, params_grads):
        """Appends clipping, regularization and the update ops for [(param, grad)]; returns the
        ops of the update, as Fluid: each appended after clipping and regularization (a parameter's
        learning-rate ``scale``, its update op, the optimizer's closing ops). The optimizer's
        ``grad_clip`` wins over clips set with ``set_gradient_clip``."""
        # as Fluid 1.8: by parameter name (the order of the clip's sums, the accumulators, the update ops)
        params_grads = sorted(((p, g) for p, g in params_grads if g is not None), key=lambda pg: pg[0].name)
        if not params_grads:
            return []
        program = params_grads[0][0].block.program
        block = program.global_block()
        with program._optimized_guard():
            params_grads = clip.append_gradient_clip_ops(params_grads, self._grad_clip)
            params_grads = regularizer.append_regularization_ops(params_grads, self.regularization)
            trainable = [(p, g) for p, g in params_grads if getattr(p, "trainable", True)]
            self._create_accumulators(block, [p for p, _ in trainable])
            start = len(block.ops)
            readers = _first_readers(block)
            fluid_protocol = _overrides_in_fluids_protocol(type(self))
            for param, grad in trainable:
                with built_like(readers.get(param.name)):  # the update belongs to the param's layer
                    if fluid_protocol:
                        self._append_optimize_op(block, (param, grad))
                    else:
                        self._append_optimize_op(block, param, grad, self._param_learning_rate(param, program))
            self._finish_update(block, trainable)
        return block.ops[start:]

    def _finish_update(self, block, params_grads):
        return []

    def apply_optimize(self, loss, startup_program, params_grads):
        self._startup = startup_program
        try:
            return self.apply_gradients(params_grads)
        finally:
            self._startup = None

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None, grad_clip=None):
        """Appends backward and update ops for ``loss``; returns (update ops, [(param, grad)])."""
        if not isinstance(loss, Variable):
            raise TypeError(f"{type(self).__name__}.minimize: loss must be a Variable, got {loss!r}")
        if grad_clip is not None:
            if not hasattr(grad_clip, "_static_clip"):
                raise TypeError(f"{type(self).__name__}.minimize: grad_clip must be a gradient clip, got {grad_clip!r}")
            self._grad_clip = grad_clip
        params_grads = self.backward(loss, startup_program, parameter_list, no_grad_set)
        ops = self.apply_optimize(loss, startup_program, params_grads)
        return ops, params_grads


def _overrides_in_fluids_protocol(cls):
    """True where a script's subclass overrides ``_append_optimize_op(self, block, param_and_grad)``,
    Fluid's (and Paddle 2.x's) signature: apply_gradients then calls it that way."""
    method = getattr(cls, "_append_optimize_op", None)
    code = getattr(method, "__code__", None)
    return code is not None and code.co_argcount == 3


def persistable_var(program, name, shape, dtype, value, startup=None):
    """A persistable variable in ``program``, filled with ``value`` by the startup program (the
    given one, else the default one: inside ``program_guard(main, startup)`` that is ``startup``)."""
    var = program.global_block().create_var(name=name, shape=shape, dtype=dtype, persistable=True, stop_gradient=True)
    startup = startup if startup is not None else default_startup_program()
    sblock = startup.global_block()
    svar = sblock.create_var(name=name, shape=shape, dtype=dtype, persistable=True)
    ConstantInitializer(float(value))(svar, sblock)  # first in the startup program, as Fluid's
    return var


def _first_readers(block):
    """{variable name: the first op that reads it}: a parameter's layer is the one that uses it."""
    readers = {}
    for op in block.ops:
        for name in op.input_arg_names:
            readers.setdefault(name, op)
    return readers
