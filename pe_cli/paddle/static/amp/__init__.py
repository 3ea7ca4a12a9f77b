"""``paddle.static.amp``: automatic mixed precision for static programs. pe trains in float32 (its
kernels have no float16 compute), which is what Paddle 2.6.2 does on the CPU: ``decorate`` wraps the
optimizer (its update unchanged), ``fp16_guard`` marks nothing; the float16 casts and bfloat16 are
refused in one line (decorator.py, fp16_utils.py, bf16/)."""

from . import bfloat as bf16  # noqa: F401 -- Paddle's name (paddle2_modules.py)
from . import amp_nn, debugging, decorator, fp16_lists, fp16_utils, function_overload  # noqa: F401
from .decorator import decorate  # noqa: F401
from .fp16_lists import AutoMixedPrecisionLists, CustomOpLists  # noqa: F401
from .fp16_utils import cast_model_to_fp16, cast_parameters_to_fp16, fp16_guard  # noqa: F401

__all__ = [
    "AutoMixedPrecisionLists",
    "CustomOpLists",
    "cast_model_to_fp16",
    "cast_parameters_to_fp16",
    "decorate",
    "fp16_guard",
]
