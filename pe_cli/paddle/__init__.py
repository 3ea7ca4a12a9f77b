"""The companion of the Fluid face: ``paddle.batch``, ``paddle.reader`` and ``paddle.dataset``
(local files only), and the start of Paddle 2.x's static face (seed 002): ``enable_static``,
``paddle.static``, ``paddle.optimizer`` (SGD, Momentum, Adam), ``mean``, the places. ``pe fluid
SCRIPT.py`` makes ``import paddle`` land here; importing pe never does."""
from .. import layers as _layers
from ..errors import PeError
from ..places import CPUPlace, CUDAPlace  # noqa: F401
from . import dataset, optimizer, reader, static  # noqa: F401
from .batch import batch  # noqa: F401

__all__ = ["CPUPlace", "CUDAPlace", "batch", "dataset", "disable_static", "enable_static", "in_dynamic_mode",
           "mean", "optimizer", "reader", "static"]


def enable_static():
    """pe always builds static graphs: nothing to switch."""


def disable_static(place=None):
    raise PeError("paddle.disable_static: pe runs static graphs only (dygraph is not supported)")


def in_dynamic_mode():
    return False


def mean(x, axis=None, keepdim=False, name=None):
    """The mean of ``x`` (over all its values when ``axis`` is None)."""
    if axis is None:
        return _layers.mean(x, name=name)
    return _layers.reduce_mean(x, dim=axis, keep_dim=keepdim, name=name)
