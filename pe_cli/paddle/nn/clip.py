"""``paddle.nn.ClipGradByValue``, ``ClipGradByNorm``, ``ClipGradByGlobalNorm``: pe's gradient clips
(pe_cli/training/clip.py) under 2.x's names, given to an optimizer's ``grad_clip``. A parameter whose
ParamAttr has ``need_clip=False`` keeps its gradient as it is."""
from ...training import clip as _clip

__all__ = ["ClipGradByValue", "ClipGradByNorm", "ClipGradByGlobalNorm"]


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


_allow_pure_fp16_global_norm_clip_flag = False


def _allow_pure_fp16_global_norm_clip(*args):
    """Paddle 2.6's switch: with no argument, whether ClipGradByGlobalNorm sums float16 gradients'
    norms in float16 (True) rather than casting them to float32 (False, the default); with one
    bool, sets it and returns the value it had."""
    global _allow_pure_fp16_global_norm_clip_flag
    if not args:
        return _allow_pure_fp16_global_norm_clip_flag
    assert len(args) == 1 and isinstance(args[0], bool)
    old, _allow_pure_fp16_global_norm_clip_flag = _allow_pure_fp16_global_norm_clip_flag, args[0]
    return old
