"""Optimizers: ``minimize(loss)`` appends the backward ops, regularization, clipping and one update
op per parameter (role Optimize). Optimizer state (moments, the learning rate) lives in
persistable variables initialized by the startup program, so checkpoints carry it."""
from .backward import append_backward
from .errors import PeError
from .framework import OpRole, default_main_program, default_startup_program, unique_name
from .framework.variable import Variable


class Optimizer:
    type = None

    def __init__(self, learning_rate, regularization=None, grad_clip=None, name=None):
        if not isinstance(learning_rate, (int, float, Variable)):
            raise TypeError(f"learning_rate must be a float or a Variable (a schedule), got {learning_rate!r}")
        if isinstance(learning_rate, (int, float)) and learning_rate < 0:
            raise PeError(f"learning_rate must be >= 0, got {learning_rate}")
        self._learning_rate = learning_rate
        self.regularization = regularization
        self._grad_clip = grad_clip
        self._name = name or unique_name.generate(self.type or "optimizer")
        self._lr_var = None
        self._accumulators = {}   # (state name, param name) -> Variable

    # -- learning rate -----------------------------------------------------------------------
    def _global_learning_rate(self, program):
        if isinstance(self._learning_rate, Variable):
            return self._learning_rate
        if self._lr_var is None or self._lr_var.block.program is not program:
            name = unique_name.generate("learning_rate")
            self._lr_var = _persistable_var(program, name, [1], "float32", self._learning_rate)
        return self._lr_var

    def _param_learning_rate(self, param, program):
        lr = self._global_learning_rate(program)
        scale = param.optimize_attr.get("learning_rate", 1.0)
        if scale == 1.0:
            return lr
        block = program.global_block()
        out = block.create_var(name=unique_name.generate(f"{param.name}.lr"), shape=[1], dtype=lr.dtype)
        block.append_op("scale", {"X": [lr]}, {"Out": [out]}, {"scale": float(scale)})
        return out

    # -- state ----------------------------------------------------------------------------------
    def _add_accumulator(self, state, param, fill_value=0.0, shape=None, dtype=None):
        key = (state, param.name)
        if key not in self._accumulators:
            name = unique_name.generate(f"{param.name}_{self._name}_{state}")
            self._accumulators[key] = _persistable_var(param.block.program, name,
                                                       shape if shape is not None else param.shape,
                                                       dtype or param.dtype, fill_value)
        return self._accumulators[key]

    def _get_accumulator(self, state, param):
        return self._accumulators[(state, param.name)]

    # -- the update -----------------------------------------------------------------------------
    def _append_update_op(self, block, param, grad, lr):
        raise NotImplementedError   # every optimizer defines its update op

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None, callbacks=None):
        return append_backward(loss, parameter_list, no_grad_set, callbacks)

    def apply_gradients(self, params_grads):
        from . import clip, regularizer
        if not params_grads:
            return []
        program = params_grads[0][0].block.program
        block = program.global_block()
        with program._optimized_guard():
            params_grads = clip.append_gradient_clip_ops(params_grads, self._grad_clip)
            params_grads = regularizer.append_regularization_ops(params_grads, self.regularization)
            ops = []
            for param, grad in params_grads:
                if not param.trainable:
                    continue
                lr = self._param_learning_rate(param, program)
                ops.append(self._append_update_op(block, param, grad, lr))
            ops += self._finish_update(block, params_grads)
        return ops

    def _finish_update(self, block, params_grads):
        return []

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None, grad_clip=None):
        """Appends backward and update ops for ``loss``; returns (update ops, [(param, grad)])."""
        if grad_clip is not None:
            self._grad_clip = grad_clip
        params_grads = self.backward(loss, startup_program, parameter_list, no_grad_set)
        ops = self.apply_gradients(params_grads)
        return ops, params_grads


def _persistable_var(program, name, shape, dtype, value):
    """A persistable variable in ``program``, filled with ``value`` by the startup program."""
    var = program.global_block().create_var(name=name, shape=shape, dtype=dtype, persistable=True,
                                            stop_gradient=True)
    startup = default_startup_program() if program is default_main_program() else _startup_for(program)
    svar = startup.global_block().create_var(name=name, shape=shape, dtype=dtype, persistable=True)
    startup.global_block().append_op("fill_constant", {}, {"Out": [svar]},
                                     {"shape": list(shape), "dtype": dtype, "value": float(value)})
    return var


def _startup_for(program):
    # Inside program_guard(main, startup) the default startup program is the matching one.
    return default_startup_program()


class SGDOptimizer(Optimizer):
    type = "sgd"

    def _append_update_op(self, block, param, grad, lr):
        return block.append_op("sgd", {"Param": [param], "Grad": [grad], "LearningRate": [lr]},
                               {"ParamOut": [param]})


SGD = SGDOptimizer
