"""numba loops of the NMS and matching kernels (kernels/cpu/detection_nms.py, detection_match.py):
Fluid 1.8's per-image programs NMSFast (with JaccardOverlap and BBoxArea), BipartiteMatch and
ArgMaxMatch, compiled with njit and run without the GIL. The CUDA kernels run the CPU kernels on the host, as the other ops whose
output size depends on the data do."""

import numpy as np
from numba import njit
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_JIT = dict(cache=True, nogil=True)


@njit(**_JIT)
def box_area(b, i, normalized):
    """Fluid's BBoxArea: 0 for an inverted box, +1 on sides for pixel boxes."""
    if b[i, 2] < b[i, 0] or b[i, 3] < b[i, 1]:
        return 0.0
    w = b[i, 2] - b[i, 0]
    h = b[i, 3] - b[i, 1]
    return w * h if normalized else (w + 1) * (h + 1)


@njit(**_JIT)
def _signed_area(xs, ys, n):
    area = 0.0
    for k in range(n):
        area += xs[k] * ys[(k + 1) % n] - xs[(k + 1) % n] * ys[k]
    return 0.5 * area


@njit(**_JIT)
def _clip_edge(xs, ys, n, ax, ay, bx, by, sign, ox, oy):
    """Sutherland-Hodgman: the polygon (xs, ys)[:n] clipped by the half-plane left of a -> b (right
    when sign < 0), into (ox, oy); returns its vertex count."""
    m = 0
    for k in range(n):
        px, py, qx, qy = xs[k], ys[k], xs[(k + 1) % n], ys[(k + 1) % n]
        dp = sign * ((bx - ax) * (py - ay) - (by - ay) * (px - ax))
        dq = sign * ((bx - ax) * (qy - ay) - (by - ay) * (qx - ax))
        if dp >= 0:
            ox[m], oy[m] = px, py
            m += 1
        if (dp >= 0) != (dq >= 0):
            t = dp / (dp - dq)
            ox[m], oy[m] = px + t * (qx - px), py + t * (qy - py)
            m += 1
    return m


@njit(**_JIT)
def poly_iou(b, i, j):
    """Fluid's PolyIoU of polygons i and j of b [K, 2P] (x1, y1, ..., xP, yP): the intersection's area
    over the union's (0 when the union is empty). The intersection is polygon i clipped by polygon j
    edge by edge, exact for a convex j (text boxes' quadrilaterals); either orientation."""
    n = b.shape[1] // 2
    cap = 4 * n + 4
    xs, ys, ox, oy = np.empty(cap), np.empty(cap), np.empty(cap), np.empty(cap)
    cx, cy = np.empty(n), np.empty(n)
    for k in range(n):
        xs[k], ys[k] = b[i, 2 * k], b[i, 2 * k + 1]
        cx[k], cy[k] = b[j, 2 * k], b[j, 2 * k + 1]
    area_i, area_j = abs(_signed_area(xs, ys, n)), _signed_area(cx, cy, n)
    sign = 1.0 if area_j >= 0 else -1.0
    m = n
    for k in range(n):
        if m == 0:
            break
        m = _clip_edge(xs, ys, m, cx[k], cy[k], cx[(k + 1) % n], cy[(k + 1) % n], sign, ox, oy)
        xs, ox = ox, xs
        ys, oy = oy, ys
    inter = abs(_signed_area(xs, ys, m)) if m > 2 else 0.0
    union = area_i + abs(area_j) - inter
    return inter / union if union > 0 else 0.0


@njit(**_JIT)
def jaccard(b, i, j, normalized):
    """Fluid's JaccardOverlap of boxes i and j of b [K, 4]; of polygons (b [K, 2P], P > 2) its PolyIoU."""
    if b.shape[1] > 4:
        return poly_iou(b, i, j)
    if b[j, 0] > b[i, 2] or b[j, 2] < b[i, 0] or b[j, 1] > b[i, 3] or b[j, 3] < b[i, 1]:
        return 0.0
    plus = 0.0 if normalized else 1.0
    iw = min(b[i, 2], b[j, 2]) - max(b[i, 0], b[j, 0]) + plus
    ih = min(b[i, 3], b[j, 3]) - max(b[i, 1], b[j, 1]) + plus
    inter = iw * ih
    return inter / (box_area(b, i, normalized) + box_area(b, j, normalized) - inter)


@njit(**_JIT)
def nms_fast(boxes, scores, score_threshold, nms_threshold, eta, top_k, normalized, kept):
    """Greedy NMS of one class: candidates above score_threshold in descending score (stable), the
    first top_k (-1: all), each kept unless its overlap with a kept box exceeds the (adaptive)
    threshold. Writes the kept indices to ``kept`` and returns how many."""
    n = scores.shape[0]
    cand = np.empty(n, np.int64)
    c = 0
    for i in range(n):
        if scores[i] > score_threshold:
            cand[c] = i
            c += 1
    neg = np.empty(c, np.float64)
    for k in range(c):
        neg[k] = -scores[cand[k]]
    order = np.argsort(neg, kind="mergesort")
    if -1 < top_k < c:
        order = order[:top_k]
    threshold = nms_threshold
    count = 0
    for o in order:
        idx = cand[o]
        keep = True
        for k in range(count):
            if jaccard(boxes, idx, kept[k], normalized) > threshold:
                keep = False
                break
        if keep:
            kept[count] = idx
            count += 1
            if eta < 1 and threshold > 0.5:
                threshold *= eta
    return count


@njit(**_JIT)
def bipartite(dist, start, end, match_idx, match_dist):
    """Fluid's greedy BipartiteMatch of rows [start, end) of dist against its columns: the largest
    remaining distance (>= 1e-6) pairs a free row with a free column, until none is left."""
    rows = end - start
    cols = dist.shape[1]
    free = np.ones(rows, np.bool_)
    for _ in range(rows):
        best_col, best_row, best = -1, -1, -1.0
        for j in range(cols):
            if match_idx[j] != -1:
                continue
            for m in range(rows):
                d = dist[start + m, j]
                if free[m] and d >= 1e-6 and d > best:
                    best_col, best_row, best = j, m, d
        if best_col == -1:
            break
        match_idx[best_col] = best_row
        match_dist[best_col] = best
        free[best_row] = False


@njit(**_JIT)
def argmax_match(dist, start, end, threshold, match_idx, match_dist):
    """Fluid's ArgMaxMatch ('per_prediction'): each still unmatched column takes its best row whose
    distance reaches ``threshold``."""
    for j in range(dist.shape[1]):
        if match_idx[j] != -1:
            continue
        best_row, best = -1, -1.0
        for m in range(end - start):
            d = dist[start + m, j]
            if d >= 1e-6 and d >= threshold and d > best:
                best_row, best = m, d
        if best_row != -1:
            match_idx[j] = best_row
            match_dist[j] = best


@njit(**_JIT)
def matrix_decay(boxes, order, normalized, use_gaussian, sigma, decay):
    """Matrix NMS (arXiv 2003.10152) of one class: for the boxes in ``order`` (descending score), each
    one's decay factor min over the higher-scored boxes j of f(IoU(j, i), the max IoU of j with any box
    above it): (1 - iou) / (1 - max_iou), or exp((max_iou^2 - iou^2) * sigma); at most 1."""
    n = order.shape[0]
    iou = np.zeros((n, n), np.float64)
    iou_max = np.zeros(n, np.float64)
    for i in range(n):
        for j in range(i):
            v = jaccard(boxes, order[i], order[j], normalized)
            iou[i, j] = v
            if v > iou_max[i]:
                iou_max[i] = v
    for i in range(n):
        d = 1.0
        for j in range(i):
            if use_gaussian:
                f = np.exp((iou_max[j] * iou_max[j] - iou[i, j] * iou[i, j]) * sigma)
            else:
                f = (1.0 - iou[i, j]) / (1.0 - iou_max[j])
            if f < d:
                d = f
        decay[i] = d


@njit(**_JIT)
def locality_merge(boxes, scores, nms_threshold, normalized, kept):
    """Locality-aware NMS's first pass (Fluid's GetMaxScoreIndexWithLocalityAware): in row order, a box
    overlapping the current one by more than the threshold is merged into it (coordinates weighted by
    score, scores added), else it becomes the current one. Changes boxes and scores in place, as
    Fluid's kernel does; kept[i]: box i survives the pass."""
    index = -1
    for i in range(boxes.shape[0]):
        if index > -1 and jaccard(boxes, i, index, normalized) > nms_threshold:
            total = scores[i] + scores[index]
            for k in range(boxes.shape[1]):
                boxes[index, k] = (boxes[i, k] * scores[i] + boxes[index, k] * scores[index]) / total
            scores[index] += scores[i]
        else:
            if index > -1:
                kept[index] = True
            index = i
    if index > -1:
        kept[index] = True
