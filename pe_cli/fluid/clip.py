"""``paddle.fluid.clip``: gradient clipping; error clipping is not in pe yet."""
from ..training.clip import (GradientClipBase, GradientClipByGlobalNorm, GradientClipByNorm,  # noqa: F401
                    GradientClipByValue, append_gradient_clip_ops, set_gradient_clip)
from .unsupported import unsupported

ErrorClipByValue = unsupported("fluid.clip.ErrorClipByValue")

__all__ = ["ErrorClipByValue", "GradientClipByValue", "GradientClipByNorm", "GradientClipByGlobalNorm",
           "set_gradient_clip", "append_gradient_clip_ops"]
