"""Pooling layers of Fluid 1.8's ``fluid.layers``, with its signatures: pool2d (NCHW or NHWC),
adaptive_pool2d, and pool3d and adaptive_pool3d over 5-D [N, C, D, H, W] inputs (NDHWC inputs are
transposed around the NCDHW op)."""

__all__ = ["pool2d", "adaptive_pool2d", "pool3d", "adaptive_pool3d"]
from ..base.errors import ArgumentTypeError, ArgumentValueError, PeError
from .convolution import fmt, _pair, _paddings, shape_error
from .helper import LayerHelper
from .checks import check_type, check_variable_and_dtype
from .helper import _as_list, check_ints
from .manipulation import transpose
from .checks import fluid_checks


def pool2d(
    input,
    pool_size=-1,
    pool_type="max",
    pool_stride=1,
    pool_padding=0,
    global_pooling=False,
    use_cudnn=True,
    ceil_mode=False,
    name=None,
    exclusive=True,
    data_format="NCHW",
):
    """Max or average pooling over NCHW (or NHWC) input."""
    helper = LayerHelper("pool2d", input=input, name=name)
    _check_use_cudnn(use_cudnn)
    if pool_type not in ("max", "avg"):
        raise ArgumentValueError(f"pool2d layer '{helper.name}': pool_type={pool_type!r} must be 'max' or 'avg'")
    if not global_pooling and pool_size == -1:
        raise ArgumentValueError(f"pool2d layer '{helper.name}': pass pool_size (or global_pooling=True)")
    if data_format not in ("NCHW", "NHWC"):
        raise ArgumentValueError(f"pool2d layer '{helper.name}': data_format={data_format!r} must be 'NCHW' or 'NHWC'")
    if input.shape is None or len(input.shape) != 4:
        raise shape_error(
            helper, f"input '{input.name}' {fmt(input.shape)} must be 4-D {data_format} for a {pool_size} pool window"
        )
    ksize = _pair(pool_size, "pool_size", helper)  # (-1: [-1, -1], as Fluid writes a global pool's)
    paddings, algorithm = _paddings(pool_padding, helper, "pool_padding", data_format)
    if algorithm == "VALID" and ceil_mode:
        raise ArgumentValueError(f"pool2d layer '{helper.name}': ceil_mode must be False with pool_padding='VALID'")
    out = helper.create_variable_for_type_inference(helper.input_dtype())
    helper.append_op(
        "pool2d",
        {"X": [input]},
        {"Out": [out]},
        {
            "pooling_type": pool_type,
            "ksize": ksize,
            "global_pooling": global_pooling,
            "strides": _pair(pool_stride, "pool_stride", helper),
            "paddings": paddings,
            "padding_algorithm": algorithm,
            "use_cudnn": use_cudnn,
            "ceil_mode": ceil_mode,
            "exclusive": exclusive,
            "data_format": data_format,
        },
    )
    return out


def _three(layer, what, value):
    v = check_ints(layer, what, _as_list(value))
    v = v * 3 if len(v) == 1 else v
    if len(v) != 3:
        raise ArgumentValueError(f"{layer}: {what}={value!r} must be an int or 3 ints")
    return v


def _paddings3d(padding, data_format):
    """Fluid's forms: an int, 3 ints, 6 ints (front, back, top, bottom, left, right) or 5 pairs
    including the batch and channel dims (which must be [0, 0])."""
    p = padding if isinstance(padding, (list, tuple)) else [padding]
    if len(p) == 5 and all(isinstance(e, (list, tuple)) for e in p):
        keep = (2, 3, 4) if data_format == "NCDHW" else (1, 2, 3)
        if any(list(p[i]) != [0, 0] for i in range(5) if i not in keep):
            raise ArgumentValueError(f"pool3d: pool_padding={padding!r} may not pad the batch or channel dims")
        p = [v for i in keep for v in p[i]]
    p = check_ints("pool3d", "pool_padding", list(p))
    if len(p) == 6 and p[0::2] == p[1::2]:
        p = p[0::2]
    if len(p) == 1:
        p = p * 3
    if len(p) not in (3, 6) or min(p) < 0:
        raise ArgumentValueError(
            f"pool3d: pool_padding={padding!r} must be an int, 3 or 6 ints >= 0, 5 pairs, 'SAME' or 'VALID'"
        )
    return p


def _append(input, attrs, data_format, name):
    helper = LayerHelper("pool3d", input=input, name=name)
    if len(input.shape or ()) != 5:
        raise PeError(f"pool3d: input {list(input.shape or ())} must be 5-D ({data_format})")
    x = transpose(input, [0, 4, 1, 2, 3]) if data_format == "NDHWC" else input
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("pool3d", {"X": [x]}, {"Out": [out]}, attrs)
    return transpose(out, [0, 2, 3, 4, 1]) if data_format == "NDHWC" else out


def _check_use_cudnn(use_cudnn):
    if not isinstance(use_cudnn, bool):  # Fluid 1.8's TypeError
        raise ArgumentTypeError(f"Attr(use_cudnn) should be True or False. Received Attr(use_cudnn): {use_cudnn}.")


def pool3d(
    input,
    pool_size=-1,
    pool_type="max",
    pool_stride=1,
    pool_padding=0,
    global_pooling=False,
    use_cudnn=True,
    ceil_mode=False,
    name=None,
    exclusive=True,
    data_format="NCDHW",
):
    """Max or average pooling of a 5-D input over pool_size windows (Fluid 1.8's rules: strides,
    paddings or 'SAME'/'VALID', ceil_mode, global_pooling, exclusive averages)."""
    _check_use_cudnn(use_cudnn)
    if pool_type not in ("max", "avg"):
        raise ArgumentValueError(f"pool3d: pool_type={pool_type!r} must be 'max' or 'avg'")
    if not global_pooling and pool_size == -1:
        raise ArgumentValueError("pool3d: give pool_size (or global_pooling=True)")
    if data_format not in ("NCDHW", "NDHWC"):
        raise ArgumentValueError(f"pool3d: data_format={data_format!r} must be 'NCDHW' or 'NDHWC'")
    algorithm = "EXPLICIT"
    if isinstance(pool_padding, str):
        algorithm = pool_padding.upper()
        if algorithm not in ("SAME", "VALID"):
            raise ArgumentValueError(f"pool3d: pool_padding={pool_padding!r} must be 'SAME' or 'VALID' as a string")
        if algorithm == "VALID" and ceil_mode:
            raise ArgumentValueError("pool3d: ceil_mode must be False with pool_padding='VALID'")
        pool_padding = 0
    attrs = {
        "pooling_type": pool_type,
        "ksize": [1, 1, 1] if global_pooling and pool_size == -1 else _three("pool3d", "pool_size", pool_size),
        "global_pooling": global_pooling,
        "strides": _three("pool3d", "pool_stride", pool_stride),
        "paddings": _paddings3d(pool_padding, data_format),
        "padding_algorithm": algorithm,
        "use_cudnn": use_cudnn,
        "ceil_mode": ceil_mode,
        "exclusive": exclusive,
    }
    return _append(input, attrs, data_format, name)


@fluid_checks(
    "adaptive_pool3d",
    input=("float16", "float32", "float64", "int32", "int64"),
    pool_type=str,
    pool_size=(int, list, tuple),
    require_index=bool,
)
def adaptive_pool3d(input, pool_size, pool_type="max", require_index=False, name=None):
    """Max or avg pooling of [N, C, D, H, W] to [N, C, pool_size...] (``_adaptive``)."""
    return _adaptive(3, input, pool_size, pool_type, require_index, name)


@fluid_checks(
    "adaptive_pool2d",
    input=("float16", "float32", "float64", "int32", "int64"),
    pool_type=str,
    pool_size=(int, list, tuple),
    require_index=bool,
)
def adaptive_pool2d(input, pool_size, pool_type="max", require_index=False, name=None):
    """Max or avg pooling of [N, C, H, W] to [N, C, pool_size...] (``_adaptive``)."""
    return _adaptive(2, input, pool_size, pool_type, require_index, name)


def _adaptive(n, input, pool_size, pool_type, require_index, name):
    """Fluid 1.8.5's adaptive pooling: window i along a dim of size k spans floor(i * k / size) to
    ceil((i + 1) * k / size); max pooling is a ``max_poolNd_with_index`` op (its Mask, the flat
    position of each maximum in its plane, returned too with ``require_index``), avg a ``poolNd``."""
    layer = f"adaptive_pool{n}d"
    check_variable_and_dtype(input, "input", ("float16", "float32", "float64", "int32", "int64"), layer)
    check_type(pool_type, "pool_type", str, layer)
    check_type(pool_size, "pool_size", (int, list, tuple), layer)
    check_type(require_index, "require_index", bool, layer)
    if pool_type not in ("max", "avg"):
        raise ArgumentValueError(f"{layer}: unknown pool_type '{pool_type}'; it can only be 'max' or 'avg'")
    if pool_type == "avg" and require_index:
        raise ArgumentValueError(f"{layer}: require_index=True needs pool_type='max' (avg pooling has no index)")
    size = check_ints(layer, "pool_size", _as_list(pool_size))
    size = size * n if len(size) == 1 else size
    if len(size) != n or min(size) <= 0:
        raise ArgumentValueError(f"{layer}: pool_size={pool_size!r} must be an int or {n} ints > 0")
    op_type = f"max_pool{n}d_with_index" if pool_type == "max" else f"pool{n}d"
    helper = LayerHelper(op_type, input=input, name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    outputs = {"Out": [out]}
    if pool_type == "max":
        outputs["Mask"] = [helper.create_variable_for_type_inference("int32")]
    helper.append_op(op_type, {"X": [input]}, outputs, {"pooling_type": pool_type, "ksize": size, "adaptive": True})
    return (out, outputs["Mask"][0]) if require_index else out
