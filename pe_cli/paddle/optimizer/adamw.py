"""``paddle.optimizer.AdamW``: Adam with weight decay decoupled from the gradient, as Paddle 2.6's
adamw kernel: with lr' = lr * lr_ratio(param), param *= 1 - lr' * weight_decay (unless
``apply_decay_param_fun(param.name)`` is False), then Adam's update at lr'. Built from pe's ops
(scale, elementwise_mul, adam): no op of its own."""

import numbers

from ...framework import unique_name
from ...training import optimizer_adaptive as _adaptive
from .optimizers import Optimizer, _fluid_args

__all__ = ["AdamW"]


class AdamW(Optimizer, _adaptive.AdamOptimizer):
    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-8,
        parameters=None,
        weight_decay=0.01,
        lr_ratio=None,
        apply_decay_param_fun=None,
        grad_clip=None,
        lazy_mode=False,
        multi_precision=False,
        name=None,
    ):
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, numbers.Real):
            raise TypeError("weight_decay should be float or Tensor.")
        for what, fn in (("lr_ratio", lr_ratio), ("apply_decay_param_fun", apply_decay_param_fun)):
            if fn is not None and not callable(fn):
                raise TypeError(f"'{what}' should be a function, got {fn!r}")
        lr, _ = _fluid_args("AdamW", learning_rate, parameters)
        _adaptive.AdamOptimizer.__init__(
            self, lr, beta1, beta2, epsilon, grad_clip=grad_clip, name=name, lazy_mode=lazy_mode, epsilon_scaled=True
        )  # 2.x's epsilon
        self._schedule(learning_rate, parameters)
        self._coeff, self._lr_ratio, self._apply_decay_param_fun = float(weight_decay), lr_ratio, apply_decay_param_fun

    def _scalar(self, block, name, x, scale, bias=0.0):
        out = block.create_var(name=unique_name.generate(name), shape=[1], dtype=x.dtype, stop_gradient=True)
        block.append_op(
            "scale", {"X": [x]}, {"Out": [out]}, {"scale": float(scale), "bias": float(bias), "bias_after_scale": True}
        )
        return out

    def _append_optimize_op(self, block, param, grad, lr):
        ratio = 1.0 if self._lr_ratio is None else float(self._lr_ratio(param))
        if ratio != 1.0:
            lr = self._scalar(block, f"{param.name}.lr_ratio", lr, ratio)
        decays = self._apply_decay_param_fun is None or self._apply_decay_param_fun(param.name)
        if decays and self._coeff != 0.0:
            keep = self._scalar(block, f"{param.name}.decay", lr, -self._coeff, 1.0)  # 1 - lr' * coeff
            block.append_op("elementwise_mul", {"X": [param], "Y": [keep]}, {"Out": [param]}, {"axis": -1})
        return super()._append_optimize_op(block, param, grad, lr)
