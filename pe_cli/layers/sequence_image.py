"""im2sequence with Fluid 1.x's signature: each image's patches as one sequence."""

from ..base.errors import PeError
from .helper import LayerHelper
from .checks import fluid_checks

__all__ = ["im2sequence"]


def _pair(value, what, helper):
    if isinstance(value, int):
        return [value, value]
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return list(value)
    raise PeError(f"im2sequence layer '{helper.name}': {what} must be an int or [h, w], got {value!r}")


@fluid_checks("im2sequence", input=("float32",))
def im2sequence(input, filter_size=1, stride=1, padding=0, input_image_size=None, out_stride=1, name=None):
    """Patches of filter_size (at stride, zero padding: an int, [h, w] or [up, left, down, right]) of
    each image [N, C, H, W] as one sequence of oh * ow rows of C * kh * kw values (LoD level 1)."""
    helper = LayerHelper("im2sequence", name=name)
    if input_image_size is not None or out_stride not in (1, [1, 1], (1, 1)):
        raise PeError(
            f"im2sequence layer '{helper.name}': input_image_size / out_stride (real image sizes "
            f"at inference) are not supported by pe; leave them unset"
        )
    if isinstance(padding, int):
        padding = [padding] * 4
    elif isinstance(padding, (list, tuple)) and len(padding) == 2:
        padding = [padding[0], padding[1], padding[0], padding[1]]
    elif not (isinstance(padding, (list, tuple)) and len(padding) == 4):
        raise PeError(
            f"im2sequence layer '{helper.name}': padding must be an int, [h, w] or "
            f"[up, left, down, right], got {padding!r}"
        )
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(
        "im2sequence",
        {"X": [input]},
        {"Out": [out]},
        {
            "kernels": _pair(filter_size, "filter_size", helper),
            "strides": _pair(stride, "stride", helper),
            "paddings": list(padding),
            "out_stride": [1, 1],
        },
    )
    return out
