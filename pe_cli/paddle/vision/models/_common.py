"""What the architectures of ``paddle.vision.models`` share: ``pretrained=True`` refused (pe
downloads nothing: Paddle fetches ImageNet weights from its servers; load a local ``.pdparams``
with ``paddle.load`` and ``set_state_dict`` instead), Paddle's channel rounding, and its
conv + norm + activation block (``paddle.vision.ops.ConvNormActivation``)."""

from ... import nn
from ...param_attr import ParamAttr  # noqa: F401 (the architectures' parameter attributes)
from ....base.errors import PeError


def refuse_pretrained(arch, pretrained):
    if pretrained:
        raise PeError(
            f"paddle.vision.models.{arch}(pretrained=True): pe downloads nothing (Paddle fetches the "
            f"ImageNet weights from its servers); build it with pretrained=False and load a local "
            f".pdparams: model.set_state_dict(paddle.load(path))"
        )


def make_divisible(v, divisor=8, min_value=None):
    """Paddle's channel rounding: ``v`` to a multiple of ``divisor``, never below 90 % of ``v``."""
    min_value = divisor if min_value is None else min_value
    rounded = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * v else rounded


class ConvNormActivation(nn.Sequential):
    """Conv2D (padding keeping the size at stride 1), a norm layer and an activation, in a Sequential
    (sublayers 0, 1, 2 as Paddle's, so state dicts match)."""

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size=3,
        stride=1,
        padding=None,
        groups=1,
        norm_layer=nn.BatchNorm2D,
        activation_layer=nn.ReLU,
        dilation=1,
        bias=None,
    ):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [
            nn.Conv2D(
                in_channels,
                out_channels,
                kernel_size,
                stride,
                padding,
                dilation=dilation,
                groups=groups,
                bias_attr=None if bias else False,
            )
        ]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)
