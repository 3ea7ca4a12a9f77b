"""Gradient clipping, as ops appended before regularization and the update ops (Fluid 1.x):

- ``GradientClipByValue(max, min=None)``: each gradient element clipped to [min, max] (min = -max).
- ``GradientClipByNorm(clip_norm)``: each gradient scaled to L2 norm at most ``clip_norm``.
- ``GradientClipByGlobalNorm(clip_norm, group_name='default_group')``: all gradients of a group scaled
  by ``clip_norm / max(global_norm, clip_norm)``, global_norm = sqrt(sum of their squared L2 norms).

A clip applies through the optimizer (``SGD(..., grad_clip=clip)`` or ``minimize(..., grad_clip=clip)``,
to every gradient) or per parameter, through ``set_gradient_clip(clip, param_list, program)`` or
``ParamAttr(gradient_clip=clip)`` (stored on the parameter's ``gradient_clip_attr``). The optimizer's clip
wins over the per-parameter ones, as in Fluid 1.8.

``ErrorClipByValue(max, min=None)`` is set on a variable (``var.error_clip``): ``append_backward``
clips that variable's gradient to [min, max] as soon as it is computed, before it flows further back."""

import abc
import copy
import warnings

from ..base.errors import PeError
from ..framework import OpRole, default_main_program, unique_name
from ..framework.variable import Parameter, Variable

__all__ = [
    "ErrorClipByValue",
    "GradientClipBase",
    "GradientClipByValue",
    "GradientClipByNorm",
    "GradientClipByGlobalNorm",
    "set_gradient_clip",
    "append_gradient_clip_ops",
]


def _new_var(block, like, suffix, shape=None, dtype=None):
    return block.create_var(
        name=unique_name.generate(f"{like.name}.{suffix}"),
        shape=like.shape if shape is None else shape,
        dtype=dtype or like.dtype,
        stop_gradient=True,
    )


def append_error_clips(builder, grad_ops):
    """Fluid's error clip: a gradient contribution of a variable made with ``error_clip`` (an
    ErrorClipByValue) is clipped in place right after the grad op that writes it (``builder``:
    training/backward.py's, appending ``grad_ops``)."""
    for grad_op in grad_ops:
        for name in grad_op.output_arg_names:
            fwd = builder.targets.get(name)
            clip = getattr(builder.block.vars.get(fwd), "error_clip", None) if fwd else None
            if clip is not None:
                clip._append_clip_op(builder.block, name)


class ErrorClipByValue:
    """Clips the gradient of the variable it is set on (``var.error_clip = ErrorClipByValue(...)``)
    to [min, max] (min = -max when not given) where backward computes it."""

    def __init__(self, max, min=None):
        max = float(max)
        min = -max if min is None else float(min)
        self.max, self.min = max, min

    def __str__(self):
        return f"ByValue, min={self.min:f}, max={self.max:f}"

    def _append_clip_op(self, block, grad_name):
        block.append_op(
            "clip", {"X": [grad_name]}, {"Out": [grad_name]}, {"min": self.min, "max": self.max}, role=OpRole.Backward
        )


class GradientClipBase(abc.ABC):
    """A gradient clip. ``_static_clip(params_grads)`` clips a whole list (the optimizer's clip);
    ``_process_context`` then ``_create_operators`` clip one parameter's gradient at a time
    (clips set per parameter), sharing ``context`` across the parameters of one program."""

    def _static_clip(self, params_grads):
        """Clipped (param, grad) pairs: a pair without a gradient is dropped, and a parameter made
        with ``need_clip=False`` keeps its gradient as it is (as Fluid's clips do)."""
        params_grads = [(p, g) for p, g in params_grads if g is not None]
        context = {}
        for p, g in params_grads:
            if self._clips(p):
                self._process_context(context, p, g)
        return [self._create_operators(p, g, context) if self._clips(p) else (p, g) for p, g in params_grads]

    def _set_need_clip(self, need_clip):
        """Fluid 1.8's ``need_clip``: None (clip every gradient) or a function of the parameter
        that returns True for the gradients to clip."""
        if need_clip is not None and not callable(need_clip):
            raise TypeError(
                "The type of need_clip must be funciton, and it can filter out parameter that "
                "does't need gradient clip. This function must return True or False, and True "
                "means that clipping is required."
            )
        self._need_clip_func = need_clip

    def _clips(self, param):
        func = getattr(self, "_need_clip_func", None)
        return getattr(param, "need_clip", True) and (func is None or bool(func(param)))

    def __call__(self, params_grads):
        return self._static_clip(params_grads)

    def _process_context(self, context, param, grad):
        pass

    @abc.abstractmethod
    def _create_operators(self, param, grad, context=None):
        """Appends the clipping ops of one gradient; returns (param, clipped gradient)."""


class GradientClipByValue(GradientClipBase):
    def __init__(self, max, min=None, need_clip=None):
        self._set_need_clip(need_clip)
        max = float(max)
        if min is None:
            if max <= 0:
                raise PeError(f"GradientClipByValue: max={max} must be > 0 when min is not given (min = -max)")
            min = -max
        min = float(min)
        if min > max:
            raise PeError(f"GradientClipByValue: min={min} is greater than max={max}")
        self.max, self.min = max, min

    def __str__(self):
        return f"Clip gradient by value, min = {self.min:f}, max={self.max:f}"

    def _create_operators(self, param, grad, context=None):
        block = grad.block
        out = _new_var(block, grad, "clip")
        block.append_op("clip", {"X": [grad]}, {"Out": [out]}, {"min": self.min, "max": self.max})
        return param, out


class GradientClipByNorm(GradientClipBase):
    def __init__(self, clip_norm, need_clip=None):
        self._set_need_clip(need_clip)
        self.clip_norm = float(clip_norm)
        if not self.clip_norm > 0:
            raise PeError(f"GradientClipByNorm: clip_norm={self.clip_norm} must be > 0")

    def __str__(self):
        return f"Clip gradient by norm, clip_norm={self.clip_norm:f}"

    def _create_operators(self, param, grad, context=None):
        block = grad.block
        out = _new_var(block, grad, "clip")
        block.append_op("clip_by_norm", {"X": [grad]}, {"Out": [out]}, {"max_norm": self.clip_norm})
        return param, out


class GradientClipByGlobalNorm(GradientClipBase):
    def __init__(self, clip_norm, group_name="default_group", need_clip=None):
        self._set_need_clip(need_clip)
        self.clip_norm = float(clip_norm)
        if not self.clip_norm > 0:
            raise PeError(f"GradientClipByGlobalNorm: clip_norm={self.clip_norm} must be > 0")
        if not isinstance(group_name, str):
            raise TypeError(f"GradientClipByGlobalNorm: group_name must be a str, got {group_name!r}")
        self.group_name = group_name

    def __str__(self):
        return f"Clip gradient by global norm, clip_norm={self.clip_norm:f}, group_name={self.group_name}"

    def _process_context(self, context, param, grad):
        group = context.setdefault(
            ("global_norm", self.group_name), {"clip_norm": self.clip_norm, "norms": [], "scale": None}
        )
        if group["clip_norm"] != self.clip_norm:
            raise PeError(
                f"GradientClipByGlobalNorm: group '{self.group_name}' is given two clip_norm values, "
                f"{group['clip_norm']} and {self.clip_norm} (parameter '{param.name}'); "
                f"one group takes one clip_norm"
            )
        if group["scale"] is not None:
            raise PeError(f"GradientClipByGlobalNorm: group '{self.group_name}' already computed its norm")
        block = grad.block
        norm = _new_var(block, grad, "squared_l2_norm", shape=[1])
        block.append_op("squared_l2_norm", {"X": [grad]}, {"Out": [norm]})
        group["norms"].append(norm)

    def _group_scale(self, group, like):
        if group["scale"] is None:
            block = like.block
            total = _norm_sum(block, group["norms"], self.group_name)
            gnorm = _new_var(block, total, "sqrt", shape=[1])
            block.append_op("sqrt", {"X": [total]}, {"Out": [gnorm]})
            clip_var = block.create_var(
                name=unique_name.generate(f"{self.group_name}.clip_norm"),
                shape=[1],
                dtype=total.dtype,
                stop_gradient=True,
            )
            block.append_op(
                "fill_constant", {}, {"Out": [clip_var]}, {"shape": [1], "dtype": total.dtype, "value": self.clip_norm}
            )
            denom = _new_var(block, clip_var, "max", shape=[1])
            block.append_op("elementwise_max", {"X": [clip_var], "Y": [gnorm]}, {"Out": [denom]})
            scale = _new_var(block, clip_var, "scale", shape=[1])
            block.append_op("elementwise_div", {"X": [clip_var], "Y": [denom]}, {"Out": [scale]})
            group["scale"] = scale
        return group["scale"]

    def _create_operators(self, param, grad, context=None):
        group = (context or {}).get(("global_norm", self.group_name))
        if group is None:
            raise PeError(f"GradientClipByGlobalNorm: group '{self.group_name}' has no gradients")
        scale = self._group_scale(group, grad)
        block = grad.block
        if scale.dtype != grad.dtype:  # a float16 gradient takes the float32 scale cast to float16
            scale = _cast(block, scale, grad.dtype)
        out = _new_var(block, grad, "clip")
        block.append_op("elementwise_mul", {"X": [grad], "Y": [scale]}, {"Out": [out]})
        return param, out


_HALF = ("float16", "bfloat16")
_pure_fp16 = [False]


def allow_pure_fp16_global_norm(*args):
    """Paddle 2.6's switch (``paddle.nn.clip._allow_pure_fp16_global_norm_clip``): with no argument,
    whether a global-norm clip whose gradients are all float16 computes the norm in float16 (True)
    rather than in float32 (False, the default); with one bool, sets it and returns the old value."""
    if not args:
        return _pure_fp16[0]
    assert len(args) == 1 and isinstance(args[0], bool)
    old, _pure_fp16[0] = _pure_fp16[0], args[0]
    return old


def _cast(block, var, dtype):
    out = _new_var(block, var, "cast", dtype=dtype)
    block.append_op("cast", {"X": [var]}, {"Out": [out]}, {"in_dtype": var.dtype, "out_dtype": dtype})
    return out


def _norm_sum(block, norms, group_name):
    """The sum of the squared norms, as Paddle 2.6 adds them: each dtype's summed apart, then cast to
    float64 if a norm is float64, else float32 (float16 ones stay so when all are float16 and
    ``allow_pure_fp16_global_norm`` is on)."""
    by_dtype = {}
    for norm in norms:
        by_dtype.setdefault(norm.dtype, []).append(norm)
    pure_half = set(by_dtype) <= set(_HALF) and _pure_fp16[0]
    target = "float64" if "float64" in by_dtype else norms[0].dtype if pure_half else "float32"
    parts = []
    for dtype, same in by_dtype.items():
        part = same[0]
        if len(same) > 1:
            part = block.create_var(
                name=unique_name.generate(f"{group_name}.global_norm_sq"), shape=[1], dtype=dtype, stop_gradient=True
            )
            block.append_op("sum", {"X": same}, {"Out": [part]})
        parts.append(part if dtype == target else _cast(block, part, target))
    if len(parts) == 1:
        return parts[0]
    total = block.create_var(
        name=unique_name.generate(f"{group_name}.global_norm_sq"), shape=[1], dtype=target, stop_gradient=True
    )
    block.append_op("sum", {"X": parts}, {"Out": [total]})
    return total


def set_gradient_clip(clip, param_list=None, program=None):
    """Sets ``clip`` on the parameters in ``param_list`` (Parameters or names; default: every
    parameter of ``program``). Call it before ``minimize``; an optimizer's own ``grad_clip`` wins."""
    if not isinstance(clip, GradientClipBase):
        raise TypeError(
            f"set_gradient_clip: clip must be GradientClipByValue, GradientClipByNorm or "
            f"GradientClipByGlobalNorm, got {clip!r}"
        )
    program = program if program is not None else default_main_program()
    if any(n.endswith("@GRAD") for n in program.global_block().vars):
        warnings.warn(
            "set_gradient_clip: the program already has gradients; call it before minimize(), "
            "or the clip will not take effect",
            stacklevel=2,
        )
    if param_list is None:
        params = program.all_parameters()
    else:
        params = []
        for p in param_list:
            if isinstance(p, str):
                var = program.global_block().vars.get(p)
                if not isinstance(var, Parameter):
                    raise PeError(f"set_gradient_clip: '{p}' is not a parameter of the program")
                p = var
            elif not isinstance(p, Variable):
                raise TypeError(f"set_gradient_clip: param_list takes Parameters or names, got {p!r}")
            params.append(p)
    for p in params:
        p.gradient_clip_attr = copy.deepcopy(clip)


def append_gradient_clip_ops(params_grads, clip=None):
    """Clips [(param, grad)] with the optimizer's ``clip``, else with each parameter's own
    ``gradient_clip_attr``; returns the new [(param, clipped grad)]."""
    per_param = [getattr(p, "gradient_clip_attr", None) for p, _ in params_grads]
    if clip is not None:
        if not isinstance(clip, GradientClipBase):
            raise TypeError(f"grad_clip must be a gradient clip (fluid.clip.GradientClipByNorm(...)), got {clip!r}")
        if any(c is not None for c in per_param):
            warnings.warn(
                "the optimizer's grad_clip is used; clips set with set_gradient_clip or "
                "ParamAttr(gradient_clip=...) are ignored",
                stacklevel=3,
            )
        return clip._static_clip(params_grads)
    if all(c is None for c in per_param):
        return params_grads
    context = {}
    for (p, g), c in zip(params_grads, per_param):
        if c is None:
            continue
        if not isinstance(c, GradientClipBase):
            raise TypeError(f"parameter '{p.name}': gradient_clip must be a gradient clip, got {c!r}")
        c._process_context(context, p, g)
    return [(p, g) if c is None else c._create_operators(p, g, context) for (p, g), c in zip(params_grads, per_param)]
