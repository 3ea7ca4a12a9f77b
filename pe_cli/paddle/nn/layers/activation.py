"""``paddle.nn``'s activation layers: each calls its ``paddle.nn.functional`` form with the
arguments it was made with (PReLU holds its slopes as a parameter; RReLU uses its eval form when
``training`` is False, and pe has no op for its random training slopes)."""

from .. import functional as F
from ..initializer import Constant
from ..layer import Layer

__all__ = [
    "ReLU",
    "ReLU6",
    "Sigmoid",
    "Tanh",
    "Silu",
    "Swish",
    "Mish",
    "Softsign",
    "Tanhshrink",
    "LogSigmoid",
    "Hardswish",
    "Hardsigmoid",
    "LeakyReLU",
    "ELU",
    "CELU",
    "GELU",
    "SELU",
    "Softplus",
    "Softshrink",
    "Hardshrink",
    "Hardtanh",
    "ThresholdedReLU",
    "Maxout",
    "GLU",
    "Softmax",
    "LogSoftmax",
    "PReLU",
    "RReLU",
    "Softmax2D",
]


class _Activation(Layer):
    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def extra_repr(self):
        return f"name={self._name}" if self._name else ""


class ReLU(_Activation):
    def __init__(self, name=None):
        super().__init__(name)

    def forward(self, x):
        return F.relu(x, name=self._name)


class ReLU6(_Activation):
    def __init__(self, name=None):
        super().__init__(name)

    def forward(self, x):
        return F.relu6(x, name=self._name)


class Sigmoid(_Activation):
    def __init__(self, name=None):
        super().__init__(name)

    def forward(self, x):
        return F.sigmoid(x, name=self._name)


class Tanh(_Activation):
    def __init__(self, name=None):
        super().__init__(name)

    def forward(self, x):
        return F.tanh(x, name=self._name)


class Silu(_Activation):
    def __init__(self, name=None):
        super().__init__(name)

    def forward(self, x):
        return F.silu(x, name=self._name)


class Swish(_Activation):
    def __init__(self, name=None):
        super().__init__(name)

    def forward(self, x):
        return F.swish(x, name=self._name)


class Mish(_Activation):
    def __init__(self, name=None):
        super().__init__(name)

    def forward(self, x):
        return F.mish(x, name=self._name)


class Softsign(_Activation):
    def __init__(self, name=None):
        super().__init__(name)

    def forward(self, x):
        return F.softsign(x, name=self._name)


class Tanhshrink(_Activation):
    def __init__(self, name=None):
        super().__init__(name)

    def forward(self, x):
        return F.tanhshrink(x, name=self._name)


class LogSigmoid(_Activation):
    def __init__(self, name=None):
        super().__init__(name)

    def forward(self, x):
        return F.log_sigmoid(x, name=self._name)


class Hardswish(_Activation):
    def __init__(self, name=None):
        super().__init__(name)

    def forward(self, x):
        return F.hardswish(x, name=self._name)


class Hardsigmoid(_Activation):
    def __init__(self, name=None):
        super().__init__(name)

    def forward(self, x):
        return F.hardsigmoid(x, name=self._name)


class LeakyReLU(_Activation):
    def __init__(self, negative_slope=0.01, name=None):
        super().__init__(name)
        self._negative_slope = negative_slope

    def forward(self, x):
        return F.leaky_relu(x, self._negative_slope, name=self._name)


class ELU(_Activation):
    def __init__(self, alpha=1.0, name=None):
        super().__init__(name)
        self._alpha = alpha

    def forward(self, x):
        return F.elu(x, self._alpha, name=self._name)


class CELU(_Activation):
    def __init__(self, alpha=1.0, name=None):
        super().__init__(name)
        self._alpha = alpha

    def forward(self, x):
        return F.celu(x, self._alpha, name=self._name)


class GELU(_Activation):
    def __init__(self, approximate=False, name=None):
        super().__init__(name)
        self._approximate = approximate

    def forward(self, x):
        return F.gelu(x, self._approximate, name=self._name)


class SELU(_Activation):
    def __init__(self, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717, name=None):
        super().__init__(name)
        self._scale = scale
        self._alpha = alpha

    def forward(self, x):
        return F.selu(x, self._scale, self._alpha, name=self._name)


class Softplus(_Activation):
    def __init__(self, beta=1, threshold=20, name=None):
        super().__init__(name)
        self._beta = beta
        self._threshold = threshold

    def forward(self, x):
        return F.softplus(x, self._beta, self._threshold, name=self._name)


class Softshrink(_Activation):
    def __init__(self, threshold=0.5, name=None):
        super().__init__(name)
        self._threshold = threshold

    def forward(self, x):
        return F.softshrink(x, self._threshold, name=self._name)


class Hardshrink(_Activation):
    def __init__(self, threshold=0.5, name=None):
        super().__init__(name)
        self._threshold = threshold

    def forward(self, x):
        return F.hardshrink(x, self._threshold, name=self._name)


class Hardtanh(_Activation):
    def __init__(self, min=-1.0, max=1.0, name=None):  # noqa: A002 -- Paddle's names
        super().__init__(name)
        self._min = min
        self._max = max

    def forward(self, x):
        return F.hardtanh(x, self._min, self._max, name=self._name)


class ThresholdedReLU(_Activation):
    def __init__(self, threshold=1.0, name=None):
        super().__init__(name)
        self._threshold = threshold

    def forward(self, x):
        return F.thresholded_relu(x, self._threshold, name=self._name)


class Maxout(_Activation):
    def __init__(self, groups, axis=1, name=None):
        super().__init__(name)
        self._groups = groups
        self._axis = axis

    def forward(self, x):
        return F.maxout(x, self._groups, self._axis, name=self._name)


class GLU(_Activation):
    def __init__(self, axis=-1, name=None):
        super().__init__(name)
        self._axis = axis

    def forward(self, x):
        return F.glu(x, self._axis, name=self._name)


class Softmax(_Activation):
    def __init__(self, axis=-1, name=None):
        super().__init__(name)
        self._axis = axis

    def forward(self, x):
        return F.softmax(x, self._axis, name=self._name)


class LogSoftmax(_Activation):
    def __init__(self, axis=-1, name=None):
        super().__init__(name)
        self._axis = axis

    def forward(self, x):
        return F.log_softmax(x, self._axis, name=self._name)


class PReLU(Layer):
    """max(0, x) + weight * min(0, x); weight has num_parameters (1, or the channel count) slopes."""

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format="NCHW", name=None):
        super().__init__()
        self._data_format, self._name = data_format, name
        self.weight = self.create_parameter([num_parameters], weight_attr, default_initializer=Constant(init))

    def forward(self, x):
        return F.prelu(x, self.weight, self._data_format, self._name)


class RReLU(Layer):
    def __init__(self, lower=1.0 / 8.0, upper=1.0 / 3.0, name=None):
        super().__init__()
        self._lower, self._upper, self._name = lower, upper, name

    def forward(self, x):
        return F.rrelu(x, self._lower, self._upper, self.training, self._name)


class Softmax2D(_Activation):
    """Softmax over the channels of [N, C, H, W] (or [C, H, W]) input."""

    def forward(self, x):
        return F.softmax(x, -3, name=self._name)
