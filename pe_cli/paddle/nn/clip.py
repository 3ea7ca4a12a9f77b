"""``paddle.nn.ClipGradByValue``, ``ClipGradByNorm``, ``ClipGradByGlobalNorm``: pe's gradient clips
(pe_cli/training/clip.py) under 2.x's names, given to an optimizer's ``grad_clip``. A parameter whose
ParamAttr has ``need_clip=False`` keeps its gradient as it is."""

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
