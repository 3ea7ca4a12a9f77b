"""beam_search and beam_search_decode on CUDA: computed on the host, results moved to the device;
gather_tree: one thread per (batch, beam) path; beam_log_probs: the device's log_softmax, where and
elementwise_add kernels in turn."""

import numpy as np
from numba import cuda

from ...base.errors import PeError
from . import activation, elementwise, indexing, runtime as rt
from ._host import given_cpu_kernel
from ._launch import grid
from .launcher import jit_kernel


def _to_device(outs):
    return {k: rt.to_device(v) for k, v in outs.items()}


def beam_search(ins, attrs, cpu_beam_search):
    return _to_device(cpu_beam_search(ins, attrs))


def beam_search_decode(ins, attrs, cpu_beam_search_decode):
    return _to_device(cpu_beam_search_decode(ins, attrs))


@jit_kernel
def _gather_tree(ids, parents, out, bad):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    steps, beam = ids.shape[0], ids.shape[2]
    while i < ids.shape[1] * beam:
        b, k = i // beam, i % beam
        out[steps - 1, b, k] = ids[steps - 1, b, k]
        p = parents[steps - 1, b, k]
        for t in range(steps - 2, -1, -1):
            if p < 0 or p >= beam:
                bad[0] = 1
                break
            out[t, b, k] = ids[t, b, p]
            p = parents[t, b, p]
        if p < 0 or p >= beam:
            bad[0] = 1
        i += step


def gather_tree(ins, attrs):
    ids, parents = ins["Ids"], ins["Parents"]
    out = rt.empty(tuple(ids.shape), ids.dtype)
    if ids.shape[0] and ids.shape[1] * ids.shape[2]:
        bad = rt.to_device(np.zeros(1, np.int32))
        _gather_tree[grid(ids.shape[1] * ids.shape[2])](ids, parents, out, bad)
        if rt.to_host(bad)[0]:
            raise PeError(f"gather_tree: Parents holds a beam outside 0..{ids.shape[2] - 1}")
    return {"Out": out}


def sampling_id(ins, attrs, cpu_sampling_id):
    """Drawn on the host with the CPU kernel's generator, so both devices draw the same ids."""
    return _to_device(cpu_sampling_id(ins, attrs))


def beam_log_probs(ins, attrs):
    logits, finished = ins["Logits"], ins["Finished"]
    scores = activation.log_softmax({"X": logits}, {"axis": -1})["Out"]
    condition = finished.reshape(tuple(finished.shape) + (1,))
    scores = indexing.where({"Condition": condition, "X": ins["NoEnd"], "Y": scores}, {})["Out"]
    return elementwise.elementwise_add({"X": scores, "Y": ins["PreScores"]}, {"axis": 0})


HOST_OPS = {
    "beam_search": given_cpu_kernel(beam_search),
    "beam_search_decode": given_cpu_kernel(beam_search_decode),
    "sampling_id": given_cpu_kernel(sampling_id),
}
