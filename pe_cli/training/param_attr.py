"""ParamAttr: how a layer creates its parameter (name, initializer, learning rate, regularizer)."""

from .initializer import Initializer


class ParamAttr:
    def __init__(
        self,
        name=None,
        initializer=None,
        learning_rate=1.0,
        regularizer=None,
        trainable=True,
        do_model_average=True,
        *,
        gradient_clip=None,
    ):
        self.name = name
        self.initializer = initializer
        self.learning_rate = learning_rate
        self.regularizer = regularizer
        self.trainable = trainable
        self.gradient_clip = gradient_clip
        self.do_model_average = do_model_average

    @staticmethod
    def _to_attr(arg):
        """None -> default ParamAttr; str -> named; ParamAttr as is; False stays False (no param)."""
        if arg is None:
            return ParamAttr()
        if arg is False:
            return False
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if isinstance(arg, Initializer):
            return ParamAttr(initializer=arg)
        if arg is True:
            return ParamAttr()
        raise TypeError(f"param_attr must be a ParamAttr, a name, an initializer, None or False; got {arg!r}")


class WeightNormParamAttr(ParamAttr):
    """A weight normalized as w = g * v / ||v|| (norm over every dim but ``dim``; layers/weight_norm.py).
    ``need_clip`` is Paddle 2.x's (False: gradient clips leave g and v as they are)."""

    def __init__(
        self,
        dim=None,
        name=None,
        initializer=None,
        learning_rate=1.0,
        regularizer=None,
        trainable=True,
        do_model_average=False,
        *,
        need_clip=True,
        gradient_clip=None,
    ):
        super().__init__(
            name=name,
            initializer=initializer,
            learning_rate=learning_rate,
            regularizer=regularizer,
            trainable=trainable,
            do_model_average=do_model_average,
            gradient_clip=gradient_clip,
        )
        self.dim = dim
        self.need_clip = bool(need_clip)
