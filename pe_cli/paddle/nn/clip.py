"""``paddle.nn.ClipGradByValue``, ``ClipGradByNorm``, ``ClipGradByGlobalNorm``: pe's gradient clips
(pe_cli/training/clip.py) under 2.x's names, given to an optimizer's ``grad_clip``. A parameter whose
ParamAttr has ``need_clip=False`` keeps its gradient as it is."""

from ...layers import elementwise as _elementwise
from ...layers.checks import check_type, check_variable_and_dtype
from ...training import clip as _clip

__all__ = ["ClipGradByValue", "ClipGradByNorm", "ClipGradByGlobalNorm", "append_gradient_clip_ops", "set_gradient_clip"]


class ClipGradByValue(_clip.GradientClipByValue):
    def __init__(self, max, min=None):  # noqa: A002 -- Paddle's names
        super().__init__(max, min)


class ClipGradByNorm(_clip.GradientClipByNorm):
    def __init__(self, clip_norm):
        super().__init__(clip_norm)


class ClipGradByGlobalNorm(_clip.GradientClipByGlobalNorm):
    """``auto_skip_clip`` (a dygraph AMP option) is accepted and has no effect in pe."""

    def __init__(self, clip_norm, group_name="default_group", auto_skip_clip=False):
        super().__init__(clip_norm, group_name)


_allow_pure_fp16_global_norm_clip = _clip.allow_pure_fp16_global_norm
set_gradient_clip = _clip.set_gradient_clip
append_gradient_clip_ops = _clip.append_gradient_clip_ops


def clip_by_norm(x, max_norm, name=None):
    """Paddle 2.6's ``paddle.nn.clip.clip_by_norm`` (not in its ``__all__``): x * max_norm / ||x||_2 where the
    norm exceeds max_norm, the clip_by_norm op, with Paddle 2.6's checks (float16 or float32 x, a float
    max_norm)."""
    check_variable_and_dtype(x, "X", ("float16", "float32"), "clip_by_norm")
    check_type(max_norm, "max_norm", (float,), "clip_by_norm")
    return _elementwise.clip_by_norm.__wrapped__(x, max_norm, name)
