"""``paddle.static.InputSpec`` (seed 002): the shape, dtype and name of a model input, with None
(or -1) for a dimension of any size, as ``paddle.static.data`` takes them."""

import numpy as np

from ..base.dtypes import convert_dtype


class InputSpec:
    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"InputSpec: shape must be a list or tuple, got {type(shape).__name__}")
        for d in shape:
            if d is not None and (not isinstance(d, (int, np.integer)) or d < -1):
                raise ValueError(f"InputSpec: shape {list(shape)} holds {d!r}; each dimension is an int >= -1 or None")
        self.shape = tuple(-1 if d is None else int(d) for d in shape)
        self.dtype = convert_dtype(dtype)
        self.name = name
        self.stop_gradient = bool(stop_gradient)

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of a Variable (or anything with .shape and .dtype)."""
        return cls(list(tensor.shape), tensor.dtype, name or getattr(tensor, "name", None))

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        return cls(list(ndarray.shape), ndarray.dtype, name)

    def batch(self, batch_size):
        """A new spec with ``batch_size`` (an int or None) in front."""
        size = batch_size[0] if isinstance(batch_size, (list, tuple)) else batch_size
        return InputSpec([size] + list(self.shape), self.dtype, self.name)

    def unbatch(self):
        """A new spec without the first dimension."""
        if not self.shape:
            raise ValueError("InputSpec.unbatch: the spec has no dimension to remove")
        return InputSpec(list(self.shape[1:]), self.dtype, self.name)

    def __eq__(self, other):
        return (
            type(self) is type(other)
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.name == other.name
        )

    def __hash__(self):
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self):
        return f"InputSpec(shape={self.shape}, dtype={self.dtype}, name={self.name})"
