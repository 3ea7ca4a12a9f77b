"""``paddle.nn``'s common layers: Linear, Bilinear, Embedding, Flatten, Unflatten, Identity, the
dropouts (their ``training`` from ``train()``/``eval()``), padding (Pad1D/2D/3D, ZeroPad2D),
upsampling, PixelShuffle, PixelUnshuffle, Unfold, Fold, ChannelShuffle, CosineSimilarity and PairwiseDistance. Parameters have
2.x's layouts: Linear's weight is [in_features, out_features]."""

from .. import functional as F
from ..layer import Layer
from ... import tensor_manip as TM

__all__ = [
    "Linear",
    "Bilinear",
    "Embedding",
    "Flatten",
    "Unflatten",
    "Identity",
    "Dropout",
    "Dropout2D",
    "Dropout3D",
    "AlphaDropout",
    "Pad1D",
    "Pad2D",
    "Pad3D",
    "ZeroPad2D",
    "Upsample",
    "UpsamplingNearest2D",
    "UpsamplingBilinear2D",
    "PixelShuffle",
    "ChannelShuffle",
    "CosineSimilarity",
    "PairwiseDistance",
    "PixelUnshuffle",
    "Unfold",
    "Fold",
]


class Linear(Layer):
    """x @ weight + bias; weight [in_features, out_features] (Xavier), bias [out_features] (zeros)."""

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._in_features, self._out_features, self._name = in_features, out_features, name
        self.weight = self.create_parameter([in_features, out_features], weight_attr)
        self.bias = self.create_parameter([out_features], bias_attr, is_bias=True)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias, self._name)

    def extra_repr(self):
        return f"in_features={self._in_features}, out_features={self._out_features}, dtype={self._dtype}"


class Bilinear(Layer):
    def __init__(self, in1_features, in2_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._name = name
        self.weight = self.create_parameter([out_features, in1_features, in2_features], weight_attr)
        self.bias = self.create_parameter([1, out_features], bias_attr, is_bias=True)

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias, self._name)


class Embedding(Layer):
    """The rows of weight [num_embeddings, embedding_dim] at the ids given."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, sparse=False, weight_attr=None, name=None):
        super().__init__()
        if padding_idx is not None and padding_idx < 0:
            padding_idx += num_embeddings
        self._padding_idx, self._sparse, self._name = padding_idx, sparse, name
        self._size = [num_embeddings, embedding_dim]
        self.weight = self.create_parameter(self._size, weight_attr)

    def forward(self, x):
        return F.embedding(x, self.weight, self._padding_idx, self._sparse, self._name)

    def extra_repr(self):
        return f"{self._size[0]}, {self._size[1]}, padding_idx={self._padding_idx}, sparse={self._sparse}"


class Flatten(Layer):
    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self._start_axis, self._stop_axis = start_axis, stop_axis

    def forward(self, input):
        return TM.flatten(input, self._start_axis, self._stop_axis)


class Unflatten(Layer):
    """Splits dim ``axis`` into ``shape``."""

    def __init__(self, axis, shape, name=None):
        super().__init__()
        self._axis, self._shape = axis, list(shape)

    def forward(self, input):
        axis = self._axis + len(input.shape) if self._axis < 0 else self._axis
        rest = list(input.shape[axis + 1 :])
        if any(d is None or d < 0 for d in rest):
            raise ValueError(f"Unflatten: the dims after axis {axis} of {list(input.shape)} must be known")
        return TM.reshape(input, [0] * axis + self._shape + rest)


class Identity(Layer):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Dropout(Layer):
    def __init__(self, p=0.5, axis=None, mode="upscale_in_train", name=None):
        super().__init__()
        self._p, self._axis, self._mode, self._name = p, axis, mode, name

    def forward(self, input):
        return F.dropout(input, self._p, self._axis, self.training, self._mode, self._name)

    def extra_repr(self):
        return f"p={self._p}, axis={self._axis}, mode={self._mode}"


class Dropout2D(Layer):
    def __init__(self, p=0.5, data_format="NCHW", name=None):
        super().__init__()
        self._p, self._data_format = p, data_format

    def forward(self, input):
        return F.dropout2d(input, self._p, self.training, self._data_format)


class Dropout3D(Layer):
    def __init__(self, p=0.5, data_format="NCDHW", name=None):
        super().__init__()
        self._p, self._data_format = p, data_format

    def forward(self, input):
        return F.dropout3d(input, self._p, self.training, self._data_format)


class AlphaDropout(Layer):
    def __init__(self, p=0.5, name=None):
        super().__init__()
        self._p = p

    def forward(self, input):
        return F.alpha_dropout(input, self._p, self.training)


class _Pad(Layer):
    _dims, _format = 2, "NCHW"

    def __init__(self, padding, mode="constant", value=0.0, data_format=None, name=None):
        super().__init__()
        self._padding = [padding] * (2 * self._dims) if isinstance(padding, int) else list(padding)
        self._mode, self._value, self._data_format = mode, value, data_format or self._format

    def forward(self, x):
        return F.pad(x, self._padding, self._mode, self._value, self._data_format)


class Pad1D(_Pad):
    _dims, _format = 1, "NCL"

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad2D(_Pad):
    def __init__(self, padding, mode="constant", value=0.0, data_format="NCHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad3D(_Pad):
    _dims, _format = 3, "NCDHW"

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCDHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class ZeroPad2D(_Pad):
    def __init__(self, padding, data_format="NCHW", name=None):
        super().__init__(padding, "constant", 0.0, data_format, name)


class Upsample(Layer):
    def __init__(
        self,
        size=None,
        scale_factor=None,
        mode="nearest",
        align_corners=False,
        align_mode=0,
        data_format="NCHW",
        name=None,
    ):
        super().__init__()
        self._args = (size, scale_factor, mode, align_corners, align_mode, data_format)

    def forward(self, x):
        return F.interpolate(x, *self._args)


class UpsamplingNearest2D(Upsample):
    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "nearest", False, 0, data_format, name)


class UpsamplingBilinear2D(Upsample):
    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "bilinear", True, 0, data_format, name)


class PixelShuffle(Layer):
    def __init__(self, upscale_factor, data_format="NCHW", name=None):
        super().__init__()
        self._upscale_factor, self._data_format = upscale_factor, data_format

    def forward(self, x):
        return F.pixel_shuffle(x, self._upscale_factor, self._data_format)


class ChannelShuffle(Layer):
    def __init__(self, groups, data_format="NCHW", name=None):
        super().__init__()
        self._groups, self._data_format = groups, data_format

    def forward(self, x):
        return F.channel_shuffle(x, self._groups, self._data_format)


class CosineSimilarity(Layer):
    def __init__(self, axis=1, eps=1e-08):
        super().__init__()
        self._axis, self._eps = axis, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self._axis, self._eps)


class PairwiseDistance(Layer):
    def __init__(self, p=2.0, epsilon=1e-06, keepdim=False, name=None):
        super().__init__()
        self._p, self._epsilon, self._keepdim = p, epsilon, keepdim

    def forward(self, x, y):
        return F.pairwise_distance(x, y, self._p, self._epsilon, self._keepdim)


class PixelUnshuffle(Layer):
    def __init__(self, downscale_factor, data_format="NCHW", name=None):
        super().__init__()
        self._factor, self._data_format = downscale_factor, data_format

    def forward(self, x):
        return F.pixel_unshuffle(x, self._factor, self._data_format)


class Unfold(Layer):
    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self._args = (kernel_sizes, strides, paddings, dilations)

    def forward(self, input):
        return F.unfold(input, *self._args)


class Fold(Layer):
    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self._args = (output_sizes, kernel_sizes, strides, paddings, dilations)

    def forward(self, input):
        return F.fold(input, *self._args)
