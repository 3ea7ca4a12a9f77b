"""``paddle.fluid.clip``: gradient clipping and error clipping."""

from ..training.clip import (
    ErrorClipByValue,
    GradientClipBase,
    GradientClipByGlobalNorm,  # noqa: F401
    GradientClipByNorm,
    GradientClipByValue,
    append_gradient_clip_ops,
    set_gradient_clip,
)

__all__ = [
    "ErrorClipByValue",
    "GradientClipByValue",
    "GradientClipByNorm",
    "GradientClipByGlobalNorm",
    "set_gradient_clip",
    "append_gradient_clip_ops",
]
