"""``paddle.static.nn`` (Paddle 2.6's static layer builders) over pe's Fluid layers. Most names are
Fluid 1.8's builders unchanged (2.6 kept their signatures); the ones 2.x changed are here: ``fc``
(``x``, ``weight_attr``, ``activation``; ``num_flatten_dims=-1``), ``embedding`` (lookup_table_v2: ids
of any shape), ``prelu`` (``data_format``), ``cond`` (``return_names``), ``deform_conv2d``,
``sparse_embedding`` and ``static_pylayer``."""

from ....base.errors import PeError
from ....layers import (
    batch_norm,
    bilinear_tensor_product,
    case,
    conv2d,
    conv2d_transpose,  # noqa: F401
    conv3d,
    conv3d_transpose,
    data_norm,
    group_norm,
    instance_norm,
    layer_norm,
    nce,
    py_func,
    row_conv,
    sequence_concat,
    sequence_conv,
    sequence_enumerate,
    sequence_expand,
    sequence_expand_as,
    sequence_first_step,
    sequence_last_step,
    sequence_pad,
    sequence_pool,
    sequence_reshape,
    sequence_reverse,
    sequence_scatter,
    sequence_slice,
    sequence_softmax,
    sequence_unpad,
    spectral_norm,
    switch_case,
    while_loop,
)
from .... import layers as _layers
from ....layers.embedding import lookup as _lookup
from ....layers.helper import LayerHelper
from ....training.initializer import ConstantInitializer

__all__ = [
    "batch_norm",
    "bilinear_tensor_product",
    "case",
    "cond",
    "conv2d",
    "conv2d_transpose",
    "conv3d",
    "conv3d_transpose",
    "data_norm",
    "deform_conv2d",
    "embedding",
    "fc",
    "group_norm",
    "instance_norm",
    "layer_norm",
    "nce",
    "prelu",
    "py_func",
    "row_conv",
    "sequence_concat",
    "sequence_conv",
    "sequence_enumerate",
    "sequence_expand",
    "sequence_expand_as",
    "sequence_first_step",
    "sequence_last_step",
    "sequence_pad",
    "sequence_pool",
    "sequence_reshape",
    "sequence_reverse",
    "sequence_scatter",
    "sequence_slice",
    "sequence_softmax",
    "sequence_unpad",
    "sparse_embedding",
    "spectral_norm",
    "static_pylayer",
    "switch_case",
    "while_loop",
]

_TABLES = ("CommonSparseTable", "SSDSparseTable", "MemorySparseTable")


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None, name=None):
    """Fluid's fc under 2.x's argument names; ``num_flatten_dims=-1`` flattens all but the last dim
    (of the first input, as Paddle 2.6)."""
    if num_flatten_dims == -1:
        first = x[0] if isinstance(x, (list, tuple)) else x
        num_flatten_dims = len(first.shape) - 1
    return _layers.fc(
        input=x,
        size=size,
        num_flatten_dims=num_flatten_dims,
        param_attr=weight_attr,
        bias_attr=bias_attr,
        act=activation,
        name=name,
    )


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None, param_attr=None, dtype="float32"):
    """Rows of a [vocab_size, emb_dim] table for int64 ids of any shape (lookup_table_v2, as 2.x's
    static.nn.embedding): Out is [*ids.shape, emb_dim]; padding_idx rows are zeros."""
    return _lookup("lookup_table_v2", input, size, is_sparse, is_distributed, padding_idx, param_attr, dtype)


def sparse_embedding(
    input,
    size,
    padding_idx=None,
    is_test=False,
    entry=None,
    table_class="MemorySparseTable",
    param_attr=None,
    dtype="float32",
    slot=None,
):
    """The parameter-server embedding (lookup_table: ids [..., 1]). pe trains in one process, so the
    table is a local one with a row-sparse gradient; ``entry`` (the server's admission rule) and
    ``slot`` have no effect there, as in Paddle's local run."""
    if table_class not in _TABLES:
        raise ValueError(f"sparse_embedding: table_class={table_class!r} must be one of {', '.join(_TABLES)}")
    return _lookup("lookup_table", input, size, True, False, padding_idx, param_attr, dtype)


def prelu(x, mode, param_attr=None, data_format="NCHW", name=None):
    """x where x > 0, else alpha * x; alpha (initialized 0.25) is one value ('all'), one per channel
    ('channel': dim 1, or the last dim for a channel-last ``data_format``) or one per element of x's
    non-batch dims ('element')."""
    if mode not in ("all", "channel", "element"):
        raise ValueError("prelu: mode should be one of all, channel, element.")
    formats = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")
    if mode == "channel" and data_format not in formats:
        raise ValueError(f"prelu: data_format={data_format!r} must be one of {', '.join(formats)}")
    if mode != "channel" or data_format[1] == "C":
        return _layers.prelu(x, mode, param_attr=param_attr, name=name)
    return _prelu_channel_last(x, param_attr, name)


def _prelu_channel_last(x, param_attr, name):
    """prelu with one alpha per channel of the last dim (alpha [1, 1, 1, C], as Paddle 2.6 makes it):
    relu(x) + alpha * (x - relu(x)), from elementwise ops."""
    if len(x.shape) < 2 or x.shape[-1] is None or x.shape[-1] < 0:
        raise PeError(f"prelu: input '{x.name}' {list(x.shape)} needs a known channel (last) dim")
    helper = LayerHelper("prelu", x=x, param_attr=param_attr, name=name)
    alpha = helper.create_parameter(
        param_attr, [1, 1, 1, x.shape[-1]], x.dtype, default_initializer=ConstantInitializer(0.25)
    )
    flat_alpha = _layers.reshape(alpha, [x.shape[-1]])
    pos = _layers.relu(x)
    neg = _layers.elementwise_sub(x, pos)
    return _layers.elementwise_add(pos, _layers.elementwise_mul(neg, flat_alpha, axis=len(x.shape) - 1))


def cond(pred, true_fn=None, false_fn=None, name=None, return_names=None):
    """Fluid's cond; ``return_names`` (names dygraph-to-static uses in its messages) changes nothing."""
    return _layers.cond(pred, true_fn, false_fn, name)


def deform_conv2d(
    x,
    offset,
    mask,
    num_filters,
    filter_size,
    stride=1,
    padding=0,
    dilation=1,
    groups=1,
    deformable_groups=1,
    im2col_step=1,
    weight_attr=None,
    bias_attr=None,
    name=None,
):
    """Deformable convolution: v2 (modulated by ``mask``) when a mask is given, v1 when it is None."""
    if len(x.shape) != 4:
        raise ValueError(f"Input should be 4D tensor, but received input with the shape of {list(x.shape)}")
    return _layers.deformable_conv(
        x,
        offset,
        mask,
        num_filters,
        filter_size,
        stride,
        padding,
        dilation,
        groups,
        deformable_groups,
        im2col_step,
        param_attr=weight_attr,
        bias_attr=bias_attr,
        modulated=mask is not None,
        name=name,
    )


from . import control_flow, sequence_lod  # noqa: E402,F401 (2.6 tests name static.nn.control_flow, .sequence_lod)
from .static_pylayer import static_pylayer  # noqa: E402,F401
