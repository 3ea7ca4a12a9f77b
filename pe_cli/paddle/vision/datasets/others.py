"""``paddle.vision.datasets``' Flowers and VOC2012, which pe does not read yet: one line when made,
saying what to use (their archives hold MATLAB label files and segmentation masks pe has no reader of)."""

from ....base.errors import unsupported

__all__ = ["Flowers", "VOC2012"]

Flowers = unsupported(
    "paddle.vision.datasets.Flowers",
    "pe does not read the Flowers archive (102flowers.tgz with "
    "imagelabels.mat and setid.mat) yet; extract the images into class folders and use "
    "paddle.vision.datasets.DatasetFolder",
)
VOC2012 = unsupported(
    "paddle.vision.datasets.VOC2012",
    "pe does not read the VOC2012 segmentation archive yet; paddle.dataset.voc2012's readers read it",
)
