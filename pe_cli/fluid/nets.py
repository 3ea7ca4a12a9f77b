"""``paddle.fluid.nets``: Fluid's composite networks, composed from pe's layers (no ops of their own)."""

from .. import layers
from ..layers.checks import fluid_checks

__all__ = ["simple_img_conv_pool", "sequence_conv_pool", "glu", "scaled_dot_product_attention", "img_conv_group"]


@fluid_checks("sequence_conv_pool", input=("float32", "float64"))
def sequence_conv_pool(
    input, num_filters, filter_size, param_attr=None, act="sigmoid", pool_type="max", bias_attr=None
):
    """sequence_conv (with act) then sequence_pool over each sequence."""
    conv = layers.sequence_conv(
        input=input,
        num_filters=num_filters,
        filter_size=filter_size,
        param_attr=param_attr,
        bias_attr=bias_attr,
        act=act,
    )
    return layers.sequence_pool(input=conv, pool_type=pool_type)


def simple_img_conv_pool(
    input,
    num_filters,
    filter_size,
    pool_size,
    pool_stride,
    pool_padding=0,
    pool_type="max",
    global_pooling=False,
    conv_stride=1,
    conv_padding=0,
    conv_dilation=1,
    conv_groups=1,
    param_attr=None,
    bias_attr=None,
    act=None,
    use_cudnn=True,
):
    """conv2d (with ``act``) followed by pool2d."""
    conv = layers.conv2d(
        input=input,
        num_filters=num_filters,
        filter_size=filter_size,
        stride=conv_stride,
        padding=conv_padding,
        dilation=conv_dilation,
        groups=conv_groups,
        param_attr=param_attr,
        bias_attr=bias_attr,
        act=act,
        use_cudnn=use_cudnn,
    )
    return layers.pool2d(
        input=conv,
        pool_size=pool_size,
        pool_type=pool_type,
        pool_stride=pool_stride,
        pool_padding=pool_padding,
        global_pooling=global_pooling,
        use_cudnn=use_cudnn,
    )


def _per_conv(value, n, what):
    """Fluid broadcasts a scalar argument of img_conv_group to every conv; a list must have one per conv."""
    if not isinstance(value, (list, tuple)):
        return [value] * n
    if len(value) != n:
        raise ValueError(f"img_conv_group: {what} has {len(value)} entries for {n} convolutions")
    return list(value)


def img_conv_group(
    input,
    conv_num_filter,
    pool_size,
    conv_padding=1,
    conv_filter_size=3,
    conv_act=None,
    param_attr=None,
    conv_with_batchnorm=False,
    conv_batchnorm_drop_rate=0.0,
    pool_stride=1,
    pool_type="max",
    use_cudnn=True,
):
    """Convolutions (each optionally followed by batch_norm and dropout), then one pool2d: the VGG block."""
    n = len(conv_num_filter)
    padding = _per_conv(conv_padding, n, "conv_padding")
    filter_size = _per_conv(conv_filter_size, n, "conv_filter_size")
    attrs = _per_conv(param_attr, n, "param_attr")
    with_bn = _per_conv(conv_with_batchnorm, n, "conv_with_batchnorm")
    drop = _per_conv(conv_batchnorm_drop_rate, n, "conv_batchnorm_drop_rate")
    tmp = input
    for i in range(n):
        tmp = layers.conv2d(
            input=tmp,
            num_filters=conv_num_filter[i],
            filter_size=filter_size[i],
            padding=padding[i],
            param_attr=attrs[i],
            act=None if with_bn[i] else conv_act,
            use_cudnn=use_cudnn,
        )
        if with_bn[i]:
            tmp = layers.batch_norm(input=tmp, act=conv_act)
            if abs(drop[i]) > 1e-5:
                tmp = layers.dropout(x=tmp, dropout_prob=drop[i])
    return layers.pool2d(
        input=tmp, pool_size=pool_size, pool_type=pool_type, pool_stride=pool_stride, use_cudnn=use_cudnn
    )


def glu(input, dim=-1):
    """Gated linear unit: split ``input`` in two halves a, b along ``dim``; a * sigmoid(b)."""
    a, b = layers.split(input, num_or_sections=2, dim=dim)
    return layers.elementwise_mul(a, layers.sigmoid(b))


def _split_heads(x, num_heads):
    hidden = x.shape[-1]
    x = layers.reshape(x, shape=[0, 0, num_heads, hidden // num_heads])
    return layers.transpose(x, perm=[0, 2, 1, 3])


def _combine_heads(x):
    x = layers.transpose(x, perm=[0, 2, 1, 3])
    return layers.reshape(x, shape=[0, 0, x.shape[2] * x.shape[3]])


@fluid_checks(
    "scaled_dot_product_attention",
    queries=("float32", "float64"),
    keys=("float32", "float64"),
    values=("float32", "float64"),
)
def scaled_dot_product_attention(queries, keys, values, num_heads=1, dropout_rate=0.0):
    """softmax(Q K^T / sqrt(d)) V over [batch, length, hidden] inputs; with ``num_heads`` > 1 the
    inputs are first projected (fc with a bias, as Fluid 1.8.5's) and split into heads, and the heads joined after."""
    for v in (queries, keys, values):
        if len(v.shape) != 3:
            raise ValueError(f"scaled_dot_product_attention: inputs must be 3-D, '{v.name}' is {v.shape}")
    if queries.shape[-1] % num_heads or keys.shape[-1] % num_heads or values.shape[-1] % num_heads:
        raise ValueError("scaled_dot_product_attention: the hidden sizes must be divisible by num_heads")
    q, k, v = queries, keys, values
    if num_heads > 1:
        q = layers.fc(q, size=q.shape[-1], num_flatten_dims=2)
        k = layers.fc(k, size=k.shape[-1], num_flatten_dims=2)
        v = layers.fc(v, size=v.shape[-1], num_flatten_dims=2)
        q, k, v = (_split_heads(t, num_heads) for t in (q, k, v))
    key_dim = k.shape[-1]
    scaled_q = layers.scale(q, scale=key_dim**-0.5)
    product = layers.matmul(scaled_q, k, transpose_y=True)
    if list(product.shape or [-1, -1]).count(-1) <= 1:  # as Fluid's: the softmax over a 2-D reshape
        weights = layers.reshape(layers.softmax(layers.reshape(product, [-1, product.shape[-1]])), product.shape)
    else:
        weights = layers.softmax(product)  # (the same values; dims unknown to reshape back)
    if dropout_rate:
        weights = layers.dropout(weights, dropout_prob=dropout_rate, is_test=False)
    ctx = layers.matmul(weights, v)
    return _combine_heads(ctx) if num_heads > 1 else ctx
