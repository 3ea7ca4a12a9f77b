"""``paddle.static.amp.fp16_utils``: ``fp16_guard`` (the block whose ops pure-float16 training casts:
pe trains in float32, so the guard marks nothing) and the casts of a program to float16, which pe
refuses in one line (its kernels have no float16 compute)."""

import contextlib

from ....base.errors import unsupported

__all__ = ["fp16_guard", "cast_model_to_fp16", "cast_parameters_to_fp16"]

_NO_FP16 = (
    "pe's kernels have no float16 compute; train in float32 (paddle.static.amp.decorate does, as Paddle on the CPU)"
)


@contextlib.contextmanager
def fp16_guard():
    """The ops built inside are those level O2 with use_fp16_guard casts; pe builds them unchanged (float32)."""
    yield


cast_model_to_fp16 = unsupported("paddle.static.amp.cast_model_to_fp16", _NO_FP16)
cast_parameters_to_fp16 = unsupported("paddle.static.amp.cast_parameters_to_fp16", _NO_FP16)
