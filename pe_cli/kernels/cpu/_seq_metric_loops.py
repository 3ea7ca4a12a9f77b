"""numba loops of the sequence metric kernels (kernels/cpu/sequence_metric.py): kernels/seq_dp.py's
per-sequence programs compiled with njit, one call per sequence without the GIL."""

from numba import njit

from .. import seq_dp
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_JIT = dict(cache=True, nogil=True)
_chunks = njit(**_JIT)(seq_dp.chunk_spans)
_match = njit(**_JIT)(seq_dp.chunk_match)
_levenshtein = njit(**_JIT)(seq_dp.levenshtein)


@njit(**_JIT)
def chunk_counts(inf, lab, starts, ends, scheme, excluded, segs, counts):
    """counts[s] = (predicted, true, correct) chunks of sequence s; segs [6, rows] is scratch."""
    kinds, tb, ti, te, ts, other = scheme[0], scheme[1], scheme[2], scheme[3], scheme[4], scheme[5]
    for s in range(starts.size):
        a, b = starts[s], ends[s]
        n_i = _chunks(inf, a, b, kinds, other, tb, ti, te, ts, segs[0], segs[1], segs[2])
        n_l = _chunks(lab, a, b, kinds, other, tb, ti, te, ts, segs[3], segs[4], segs[5])
        _match(a, n_i, segs[0], segs[1], segs[2], n_l, segs[3], segs[4], segs[5], excluded, counts, s)


@njit(**_JIT)
def edit_distances(hyp, h_starts, h_ends, ref, r_starts, r_ends, bases, row, out):
    for s in range(h_starts.size):
        out[s] = _levenshtein(hyp, h_starts[s], h_ends[s], ref, r_starts[s], r_ends[s], row, bases[s])
