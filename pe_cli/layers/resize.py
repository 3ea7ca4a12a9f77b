"""Image resizing layers of Fluid 1.8's ``fluid.layers`` with its signatures: image_resize,
resize_nearest, resize_bilinear, resize_trilinear (5-D), image_resize_short (out_shape a list of ints or an
int32 Variable; Fluid's lists holding Variables and Variable scales are not supported)."""
__all__ = ["image_resize", "resize_nearest", "resize_bilinear", "resize_trilinear", "image_resize_short"]
import numbers

from ..errors import PeError
from ..framework.variable import Variable
from .helper import _check_ints, _single

_METHODS = {"BILINEAR": "bilinear", "NEAREST": "nearest", "TRILINEAR": "trilinear"}
_LAYOUTS = {4: {"NCHW": "NCHW", "NHWC": "NHWC"}, 5: {"NCDHW": "NCHW", "NDHWC": "NHWC"}}


def image_resize(input, out_shape=None, scale=None, name=None, resample="BILINEAR", actual_shape=None,
                 align_corners=True, align_mode=1, data_format="NCHW"):
    """``input`` resized to ``out_shape`` ([out_h, out_w], or [out_d, out_h, out_w] for 'TRILINEAR'
    on a 5-D input) or by ``scale``, with 'BILINEAR', 'NEAREST' or 'TRILINEAR' interpolation;
    ``actual_shape`` (an int32 Variable) overrides the size at run time."""
    if resample not in _METHODS:
        raise PeError(f"image_resize: resample={resample!r} must be one of {sorted(_METHODS)}")
    rank = 5 if resample == "TRILINEAR" else 4
    if len(input.shape or ()) != rank:
        raise PeError(f"image_resize: {resample} resizing takes a {rank}-D input, got {list(input.shape or ())}")
    if not isinstance(align_corners, bool) or align_mode not in (0, 1):
        raise PeError(f"image_resize: align_corners must be a bool and align_mode 0 or 1, got "
                      f"{align_corners!r}, {align_mode!r}")
    if data_format not in _LAYOUTS[rank]:
        raise PeError(f"image_resize: data_format={data_format!r} must be one of {sorted(_LAYOUTS[rank])}")
    if out_shape is None and scale is None:
        raise PeError("image_resize: give out_shape or scale")
    inputs = {"X": [input]}
    attrs = {"out_d": -1, "out_h": -1, "out_w": -1, "interp_method": _METHODS[resample],
             "align_corners": align_corners, "align_mode": align_mode, "data_layout": _LAYOUTS[rank][data_format]}
    if out_shape is not None:
        if isinstance(out_shape, Variable):
            out_shape.stop_gradient = True
            inputs["OutSize"] = [out_shape]
        else:
            sizes = _check_ints("image_resize", "out_shape", list(out_shape))
            keys = ("out_h", "out_w") if rank == 4 else ("out_d", "out_h", "out_w")
            if len(sizes) != rank - 2:
                raise PeError(f"image_resize: out_shape={sizes} must be [{', '.join(keys)}]")
            attrs.update(zip(keys, sizes))
    else:
        if not isinstance(scale, numbers.Real) or isinstance(scale, bool) or scale <= 0:
            raise PeError(f"image_resize: scale={scale!r} must be a number > 0")
        attrs["scale"] = float(scale)
    if actual_shape is not None:
        actual_shape.stop_gradient = True
        inputs["OutSize"] = [actual_shape]
    return _single(f"{_METHODS[resample]}_interp", input, inputs, attrs, name=name)


def resize_bilinear(input, out_shape=None, scale=None, name=None, actual_shape=None, align_corners=True,
                    align_mode=1, data_format="NCHW"):
    """image_resize with bilinear interpolation."""
    return image_resize(input, out_shape, scale, name, "BILINEAR", actual_shape, align_corners, align_mode,
                        data_format)


def resize_trilinear(input, out_shape=None, scale=None, name=None, actual_shape=None, align_corners=True,
                     align_mode=1, data_format="NCDHW"):
    """image_resize of a 5-D input [N, C, D, H, W] with trilinear interpolation."""
    return image_resize(input, out_shape, scale, name, "TRILINEAR", actual_shape, align_corners, align_mode,
                        data_format)


def resize_nearest(input, out_shape=None, scale=None, name=None, actual_shape=None, align_corners=True,
                   data_format="NCHW"):
    """image_resize with nearest-neighbour interpolation."""
    return image_resize(input, out_shape, scale, name, "NEAREST", actual_shape, align_corners, 1, data_format)


def image_resize_short(input, out_short_len, resample="BILINEAR"):
    """``input`` [N, C, H, W] resized so its shorter side is ``out_short_len``, the other scaled alike
    (rounded), as Fluid 1.8 computes it from the build-time shape."""
    shape = list(input.shape or ())
    if len(shape) != 4 or min(shape[2:]) <= 0:
        raise PeError(f"image_resize_short: input {shape} must be 4-D with a known height and width")
    hw = shape[2:]
    short = hw.index(min(hw))
    out = list(hw)
    out[short] = out_short_len
    out[1 - short] = int(float(hw[1 - short]) * (float(out_short_len) / float(hw[short])) + 0.5)
    return image_resize(input, out_shape=out, resample=resample)
