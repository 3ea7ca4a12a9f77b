"""The companion of the Fluid face: ``paddle.batch``, ``paddle.reader`` and ``paddle.dataset``
(local files only). ``pe fluid SCRIPT.py`` makes ``import paddle`` land here; importing pe never
does."""
from . import dataset, reader  # noqa: F401
from .batch import batch  # noqa: F401

__all__ = ["batch", "dataset", "reader"]
