"""``paddle.fluid.lod_tensor``: building LoDTensors from nested lists or arrays."""

from ..framework.lod_tensor import LoDTensor, create_lod_tensor, create_random_int_lodtensor  # noqa: F401

__all__ = ["create_lod_tensor", "create_random_int_lodtensor"]
