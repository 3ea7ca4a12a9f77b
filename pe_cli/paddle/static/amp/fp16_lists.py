"""``paddle.static.amp.fp16_lists``: the op lists of automatic mixed precision (Fluid's white, black
and gray lists, pe_cli/fluid/contrib/mixed_precision/fp16_lists.py) with Paddle 2.x's arguments
(``custom_black_varnames``, ``dtype``)."""

from ....fluid.contrib.mixed_precision import fp16_lists as _fluid

__all__ = ["AutoMixedPrecisionLists", "CustomOpLists"]

white_list, black_list, gray_list = _fluid.WHITE_LIST, _fluid.BLACK_LIST, _fluid.GRAY_LIST


class AutoMixedPrecisionLists(_fluid.AutoMixedPrecisionLists):
    def __init__(self, custom_white_list=None, custom_black_list=None, custom_black_varnames=None, dtype="float16"):
        if dtype not in ("float16", "bfloat16"):
            raise ValueError(f"amp_dtype should be 'float16' or 'bfloat16', but got {dtype!r}")
        super().__init__(custom_white_list, custom_black_list)
        self.amp_dtype = dtype
        self.black_varnames = set(custom_black_varnames or ())


CustomOpLists = AutoMixedPrecisionLists
