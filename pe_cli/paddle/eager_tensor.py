"""``paddle.Tensor``: Paddle 2.x's eager tensor class. pe builds static graphs, so making one refuses
in one line; the variables of the eager execution Paddle's op tests run inside ``fluid.dygraph.guard()``
(pe_cli/fluid/dygraph/eager.py) are its instances, as Paddle's eager tensors are (the tests look their
outputs up with ``isinstance(var, paddle.Tensor)``), and a static Program's variables are not."""

from ..base.errors import FluidUnsupported
from ..fluid.dygraph.eager import EagerVariable

__all__ = ["Tensor"]


class _TensorType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, EagerVariable)


class Tensor(metaclass=_TensorType):
    """Not in pe: pe runs static graphs only (an eager variable of ``fluid.dygraph.guard()`` is one)."""

    _pe_not_yet = True
    _pe_why = "pe runs static graphs only"

    def __new__(cls, *args, **kwargs):
        raise FluidUnsupported("paddle.Tensor", cls._pe_why)
