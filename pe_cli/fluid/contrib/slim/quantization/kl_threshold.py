"""The KL-divergence threshold of post-training quantization (Fluid 1.8.5's ``_get_kl_scaling_factor``):
of a 2048-bin histogram of an activation's absolute values, the clip point whose 255-level
quantization of the clipped distribution is closest to it (Kullback-Leibler), searched over the last
30% of the bins. Integer counts are summed exactly and the divergence's terms accumulated in order,
as Fluid's loops do, so the thresholds are Fluid's."""

import logging

import numpy as np

_logger = logging.getLogger("pe.slim")
BINS, LEVELS = 2048, 255


def _groups(length, levels):
    """(start, end) of each of ``levels`` groups of ``length`` bins: length // levels each, the last
    running to the end (Fluid's merge of bins)."""
    width = length // levels
    bounds = [(k * width, (k + 1) * width) for k in range(levels)]
    bounds[-1] = (bounds[-1][0], length)
    return bounds


def _candidate(hist, i, levels):
    """(P, Q) for the clip point ``i``: the reference distribution (the outliers added to its last
    bin) and the quantized one expanded back over P's non-zero bins; None where P's last bin is empty."""
    if hist[i - 1] == 0:
        return None
    p = hist[:i].copy()
    p[i - 1] += hist[i:].sum()
    q = np.zeros(i, dtype="float64")
    for start, end in _groups(i, levels):
        nonzero = p[start:end] != 0
        count = int(nonzero.sum())
        if count:
            q[start:end][nonzero] = int(hist[start:end].sum()) / (count + 0.0)
    return p, q


def _divergence(p, p_sum, q):
    """Fluid's ``_safe_entropy``: sum over P's non-zero bins of p*log(Q_sum*p) - p*log(P_sum*q), over P_sum."""
    q_sum = np.cumsum(q)[-1]
    nonzero = p != 0
    pv, qv = p[nonzero].astype("float64"), q[nonzero]
    if np.any(qv == 0):
        raise ValueError("KL threshold: a bin the reference distribution holds is empty in the quantized one")
    first = np.cumsum(pv * np.log(q_sum * pv))[-1]
    second = np.cumsum(pv * np.log(p_sum * qv))[-1]
    return (first - second) / p_sum


def kl_threshold(activation_blob, num_quantized_bins=LEVELS):
    """The threshold of ``activation_blob`` (absolute values, >= 0)."""
    blob = np.asarray(activation_blob)
    low, high = np.min(blob), np.max(blob)
    if low < 0:
        raise ValueError("kl_threshold takes absolute values: apply abs to the activations first")
    hist, edges = np.histogram(blob, bins=BINS, range=(low, high))
    ending, starting = BINS - 1, int((BINS - 1) * 0.7)
    best, best_index = None, 0
    for i in range(starting, ending + 1):
        pair = _candidate(hist, i, num_quantized_bins)
        if pair is None:
            continue
        divergence = _divergence(pair[0], blob.size, pair[1])
        if best is None or divergence < best:
            best, best_index = divergence, i
    if best_index == 0:
        while starting > 0 and hist[starting] == 0:
            starting -= 1
        best_index = starting
    return (best_index + 0.5) * (edges[1] - edges[0])
