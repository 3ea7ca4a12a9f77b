"""Fluid 1.8's ``AutoMixedPrecisionLists``: which op types run in float16 (white), stay float32
(black) or follow their inputs (gray). pe keeps the lists for scripts that read or customize them."""

import copy

__all__ = ["AutoMixedPrecisionLists"]

WHITE_LIST = {"conv2d", "matmul", "mul"}
BLACK_LIST = {
    "exp",
    "square",
    "log",
    "mean",
    "sum",
    "cos_sim",
    "softmax",
    "softmax_with_cross_entropy",
    "sigmoid_cross_entropy_with_logits",
    "cross_entropy",
    "cross_entropy2",
}
GRAY_LIST = {
    "elementwise_add",
    "elementwise_sub",
    "elementwise_mul",
    "elementwise_div",
    "elementwise_max",
    "elementwise_min",
    "elementwise_pow",
    "elementwise_mod",
    "elementwise_floordiv",
    "batch_norm",
    "tanh",
    "sigmoid",
    "lookup_table",
    "top_k",
    "pool2d",
    "pool3d",
    "dropout",
    "relu",
    "relu6",
    "leaky_relu",
    "soft_relu",
    "flatten2",
    "stack",
    "unstack",
    "uniform_random_batch_size_like",
    "gaussian_random",
    "gaussian_random_batch_size_like",
    "slice",
    "rank",
    "scale",
    "transpose2",
    "reshape2",
    "gather",
    "fill_constant",
    "get_tensor_from_selected_rows",
    "sign",
    "cast",
    "fused_bn_add_activation",
}


class AutoMixedPrecisionLists:
    """The white, black and gray op lists; ``custom_white_list`` / ``custom_black_list`` move op
    types into the white / black list (an op type in both is a ValueError, as in Fluid)."""

    def __init__(self, custom_white_list=None, custom_black_list=None):
        self._custom_white_list = custom_white_list
        self._custom_black_list = custom_black_list
        self.white_list = copy.copy(WHITE_LIST)
        self.black_list = copy.copy(BLACK_LIST)
        self.gray_list = copy.copy(GRAY_LIST)
        self.black_varnames = set()
        if custom_white_list and custom_black_list:
            for op_name in custom_white_list:
                if op_name in custom_black_list:
                    raise ValueError("Custom white list overlap custom black list")
        for op_name in custom_white_list or ():
            self.black_list.discard(op_name)
            self.gray_list.discard(op_name)
            self.white_list.add(op_name)
        for op_name in custom_black_list or ():
            self.white_list.discard(op_name)
            self.gray_list.discard(op_name)
            self.black_list.add(op_name)
