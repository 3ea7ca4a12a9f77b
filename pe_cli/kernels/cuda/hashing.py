"""CUDA twin of kernels/cpu/hashing.py: hashing is host work in Fluid too; the ids are read back,
hashed by the CPU kernel and the result copied over."""

from ..cpu import hashing as _cpu
from . import runtime as rt


def hash(ins, attrs):  # noqa: A001 -- the op's name
    return {"Out": rt.to_device(_cpu.hash({"X": rt.to_host(ins["X"])}, attrs)["Out"])}
