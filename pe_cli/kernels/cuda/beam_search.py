"""beam_search and beam_search_decode on CUDA: computed on the host, results moved to the device."""
from ..cpu import beam_search as _cpu
from . import runtime as rt


def _to_device(outs):
    return {k: v if k == "@LOD" else rt.to_device(v) for k, v in outs.items()}


def beam_search(ins, attrs):
    return _to_device(_cpu.beam_search(ins, attrs))


def beam_search_decode(ins, attrs):
    return _to_device(_cpu.beam_search_decode(ins, attrs))
