"""numba loop of generate_proposals (detection_proposals.py; imported on first use: see runtime/loops.py):
greedy non-maximum suppression over boxes already in score order (retinanet_detection_output's too,
detection_nms.py)."""

import numba
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)


@numba.njit(cache=True, nogil=True)
def _iou(b, i, j):
    """Fluid's JaccardOverlap of unnormalized boxes i and j of b [n, 4] (pixel sizes: + 1)."""
    if b[j, 0] > b[i, 2] or b[j, 2] < b[i, 0] or b[j, 1] > b[i, 3] or b[j, 3] < b[i, 1]:
        return 0.0
    iw = min(b[i, 2], b[j, 2]) - max(b[i, 0], b[j, 0]) + 1.0
    ih = min(b[i, 3], b[j, 3]) - max(b[i, 1], b[j, 1]) + 1.0
    inter = iw * ih
    ai = 0.0 if (b[i, 2] < b[i, 0] or b[i, 3] < b[i, 1]) else (b[i, 2] - b[i, 0] + 1.0) * (b[i, 3] - b[i, 1] + 1.0)
    aj = 0.0 if (b[j, 2] < b[j, 0] or b[j, 3] < b[j, 1]) else (b[j, 2] - b[j, 0] + 1.0) * (b[j, 3] - b[j, 1] + 1.0)
    return inter / (ai + aj - inter)


@numba.njit(cache=True, nogil=True)
def nms(boxes, thresh, eta, keep):
    """Writes into ``keep`` the rows of ``boxes`` (in score order) that overlap no kept row by more
    than the threshold (shrunk by ``eta`` after each kept row while above 0.5); returns how many."""
    kept = 0
    t = thresh
    for i in range(boxes.shape[0]):
        ok = True
        for k in range(kept):
            if _iou(boxes, i, keep[k]) > t:
                ok = False
                break
        if ok:
            keep[kept] = i
            kept += 1
            if eta < 1 and t > 0.5:
                t *= eta
    return kept
