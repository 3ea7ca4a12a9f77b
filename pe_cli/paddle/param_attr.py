"""``paddle.ParamAttr``: Paddle 2.x's parameter attribute, Fluid's with ``need_clip`` (False: gradient
clips leave this parameter's gradient as it is) where Fluid 1.8 had ``gradient_clip``."""

from ..training.param_attr import ParamAttr as _FluidParamAttr

__all__ = ["ParamAttr"]


class ParamAttr(_FluidParamAttr):
    def __init__(
        self,
        name=None,
        initializer=None,
        learning_rate=1.0,
        regularizer=None,
        trainable=True,
        do_model_average=True,
        need_clip=True,
    ):
        super().__init__(name, initializer, learning_rate, regularizer, trainable, do_model_average)
        self.need_clip = bool(need_clip)
