"""``paddle.amp.accuracy_compare``: compares the tensor dumps of a float32 and a low-precision Paddle run
(its tensor checker's log files) into an Excel sheet. pe writes no such dumps: each name refuses in one line."""

import os  # noqa: F401 -- a name of Paddle's module

import numpy as np  # noqa: F401 -- a name of Paddle's module

from ...base.errors import refuse

_WHY = "compares the tensor dumps of Paddle's tensor checker, which pe does not write"
refuse(
    globals(),
    "paddle.amp.accuracy_compare",
    "ExcelWriter MixedPrecisionTensorInfo TensorInfo compare_accuracy is_allclose is_infinite merge_tensor_info_list "
    "parse_lines parse_log".split(),
    _WHY,
)
