"""``paddle.amp.amp_lists``: Paddle 2.6.2's op lists of automatic mixed precision (read from the oracle):
the ops run in low precision (white), those kept in float32 (black), per dtype and level."""

WHITE_LIST = {"conv2d", "einsum", "matmul", "matmul_v2", "max_pool2d_with_index", "mul", "fused_gemm_epilogue"}
ONLY_FP16_WHITE_LIST = {
    "fake_quantize_dequantize_abs_max",
    "fake_quantize_dequantize_moving_average_abs_max",
    "fused_attention",
    "fused_feedforward",
}
FP16_WHITE_LIST = WHITE_LIST | ONLY_FP16_WHITE_LIST
FP16_BLACK_LIST = set(
    "acos asin atanh c_softmax_with_cross_entropy cosh cross_entropy cross_entropy2 cumprod cumsum dist erfinv "
    "exp expm1 frobenius_norm group_norm hsigmoid_loss huber_loss layer_norm log log10 log2 log_loss log_softmax "
    "margin_cross_entropy mean nll_loss pnorm pow reciprocal reduce_mean reduce_prod reduce_sum renorm rsqrt "
    "sigmoid_cross_entropy_with_logits sinh softmax softmax_with_cross_entropy softmin softplus square tan "
    "tanh_shrink triplet_margin_loss".split()
)
EXTRA_BLACK_LIST = {
    "lookup_table",
    "lookup_table_v2",
    "scatter",
    "linear_interp_v2",
    "nearest_interp_v2",
    "bilinear_interp_v2",
    "bicubic_interp_v2",
    "trilinear_interp_v2",
}
BF16_WHITE_LIST = set(WHITE_LIST)
BF16_BLACK_LIST = set(FP16_BLACK_LIST)


def white_list():
    """{dtype: {level: ops run in that dtype}} (levels OD, O1, O2), as Paddle 2.6.2's."""
    return {
        "float16": {level: set(FP16_WHITE_LIST) for level in ("OD", "O1", "O2")},
        "bfloat16": {level: set(BF16_WHITE_LIST) for level in ("OD", "O1", "O2")},
    }


def black_list():
    """{dtype: {level: ops kept in float32}}: O1 the black list and EXTRA_BLACK_LIST, O2 the latter only."""
    return {
        dtype: {"OD": set(), "O1": black | EXTRA_BLACK_LIST, "O2": set(EXTRA_BLACK_LIST)}
        for dtype, black in (("float16", FP16_BLACK_LIST), ("bfloat16", BF16_BLACK_LIST))
    }
