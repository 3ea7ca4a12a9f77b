"""``paddle.vision.ops`` in pe: ``distribute_fpn_proposals`` with Paddle 2.6's signature and checks,
over pe's ``distribute_fpn_proposals`` op (the rois of each image a LoD sequence)."""

from ...base.errors import PeError
from ...layers.detection_proposals import distribute_fpn_proposals as _distribute

__all__ = ["distribute_fpn_proposals"]


def distribute_fpn_proposals(
    fpn_rois, min_level, max_level, refer_level, refer_scale, pixel_offset=False, rois_num=None, name=None
):
    """(the levels' rois, restore_ind, None): ``fpn_rois`` [R, 4] spread over levels
    min_level..max_level by size (Paddle 2.6's: an AssertionError for levels not > 0, fewer than
    two or 100 and more; a TypeError for rois that are not float32/float64). pe splits the rois by
    their LoD: ``rois_num`` (the rois per image as a tensor) is refused with one line."""
    assert max_level > 0 and min_level > 0, "min_level and max_level should be greater than 0"
    levels = max_level - min_level + 1
    assert levels > 1, "max_level should be greater than min_level"
    assert levels < 100, "Only support max to 100 levels, (max_level - min_level + 1 < 100)"
    if rois_num is not None:
        raise PeError(
            "paddle.vision.ops.distribute_fpn_proposals: pe takes the rois per image from fpn_rois' LoD "
            "(lod_level=1), not from rois_num: feed the rois as a LoD tensor and leave rois_num None"
        )
    multi, restore = _distribute(
        fpn_rois, min_level, max_level, refer_level, refer_scale, name, pixel_offset=pixel_offset
    )
    return multi, restore, None
