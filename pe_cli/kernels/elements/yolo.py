"""yolov3_loss's arithmetic for one image, written once and compiled twice (as roi.py):
``make(jit)`` returns ``image_loss`` and ``image_grad`` compiled by numba.njit (the CPU loop over
images in cpu/_yolo_loops.py) or cuda.jit(device=True) (one CUDA thread per image). Follows Fluid 1.8's
detection/yolov3_loss_op.h: X [N, M * (5 + C), H, W] (M = len(anchor_mask)), per anchor the entries
x, y, w, h, objectness, C class logits; sigmoid cross-entropy for x, y, objectness and classes, L1 for
w and h; grid size H for both coordinates, as Fluid's kernel. The gradient is the loss's derivative
(each term added, where Fluid's kernel assigns)."""

import math


def make(jit):
    sce, sce_grad, iou, sigmoid = _maths(jit)
    geo = _geometry(jit, iou, sigmoid)
    image_loss = _loss(jit, sce, *geo)
    image_grad = _grad(jit, sce_grad, geo[2], geo[3])
    return {"image_loss": image_loss, "image_grad": image_grad}


def _maths(jit):
    @jit
    def sce(x, label):
        return max(x, 0.0) - x * label + math.log(1.0 + math.exp(-abs(x)))

    @jit
    def sce_grad(x, label):
        return 1.0 / (1.0 + math.exp(-x)) - label

    @jit
    def overlap(c1, w1, c2, w2):
        return min(c1 + w1 / 2.0, c2 + w2 / 2.0) - max(c1 - w1 / 2.0, c2 - w2 / 2.0)

    @jit
    def iou(x1, y1, w1, h1, x2, y2, w2, h2):
        ow = overlap(x1, w1, x2, w2)
        oh = overlap(y1, h1, y2, h2)
        inter = 0.0 if (ow < 0 or oh < 0) else ow * oh
        return inter / (w1 * h1 + w2 * h2 - inter)

    @jit
    def sigmoid(v):
        return 1.0 / (1.0 + math.exp(-v))

    return sce, sce_grad, iou, sigmoid


def _geometry(jit, iou, sigmoid):
    @jit
    def ignore_mask(x, gt, i, b, anchors, amask, m, c, h, w, input_size, thresh, sxy, obj):
        """obj[i] = -1 where the predicted box overlaps a valid gt box by more than thresh, else 0."""
        bias = -0.5 * (sxy - 1.0)
        hw = h * w
        for j in range(m):
            base = (i * m + j) * (5 + c) * hw
            for k in range(h):
                for l in range(w):
                    at = base + k * w + l
                    px = (l + sigmoid(x[at]) * sxy + bias) / h
                    py = (k + sigmoid(x[at + hw]) * sxy + bias) / h
                    pw = math.exp(x[at + 2 * hw]) * anchors[2 * amask[j]] / input_size
                    ph = math.exp(x[at + 3 * hw]) * anchors[2 * amask[j] + 1] / input_size
                    best = 0.0
                    for t in range(b):
                        g = (i * b + t) * 4
                        if gt[g + 2] >= 1e-6 and gt[g + 3] >= 1e-6:
                            best = max(best, iou(px, py, pw, ph, gt[g], gt[g + 1], gt[g + 2], gt[g + 3]))
                    obj[(i * m + j) * hw + k * w + l] = -1.0 if best > thresh else 0.0

    @jit
    def match(gt, g, anchors, an_num, amask, m, input_size):
        """The index in anchor_mask of the anchor whose shape best fits gt box g (-1: none there)."""
        best, best_n = 0.0, 0
        for a in range(an_num):
            v = iou(
                0.0, 0.0, anchors[2 * a] / input_size, anchors[2 * a + 1] / input_size, 0.0, 0.0, gt[g + 2], gt[g + 3]
            )
            if v > best:
                best, best_n = v, a
        for j in range(m):
            if amask[j] == best_n:
                return j
        return -1

    @jit
    def cell(gt, g, h, w):
        """(gi, gj): the grid cell of gt box g's centre, and its targets tx, ty."""
        gi = min(int(gt[g] * w), w - 1)
        gj = min(int(gt[g + 1] * h), h - 1)
        return gi, gj, gt[g] * h - gi, gt[g + 1] * h - gj

    return ignore_mask, match, cell, _targets(jit)


def _targets(jit):
    @jit
    def size_targets(gt, g, anchors, a, input_size):
        return (
            math.log(gt[g + 2] * input_size / anchors[2 * a]),
            math.log(gt[g + 3] * input_size / anchors[2 * a + 1]),
        )

    return size_targets


def _loss(jit, sce, ignore_mask, match, cell, size_targets):
    @jit
    def image_loss(x, gt, label, score, anchors, amask, i, b, c, h, w, input_size, thresh, sxy, pos, neg, obj, matched):
        m = amask.size
        hw = h * w
        ignore_mask(x, gt, i, b, anchors, amask, m, c, h, w, input_size, thresh, sxy, obj)
        loss = 0.0
        for t in range(b):
            g = (i * b + t) * 4
            if gt[g + 2] < 1e-6 or gt[g + 3] < 1e-6:
                matched[i * b + t] = -1
                continue
            j = match(gt, g, anchors, anchors.size // 2, amask, m, input_size)
            matched[i * b + t] = j
            if j < 0:
                continue
            gi, gj, tx, ty = cell(gt, g, h, w)
            tw, th = size_targets(gt, g, anchors, amask[j], input_size)
            s = score[i * b + t]
            at = (i * m + j) * (5 + c) * hw + gj * w + gi
            scale = (2.0 - gt[g + 2] * gt[g + 3]) * s
            loss += (sce(x[at], tx) + sce(x[at + hw], ty) + abs(x[at + 2 * hw] - tw) + abs(x[at + 3 * hw] - th)) * scale
            obj[(i * m + j) * hw + gj * w + gi] = s
            for k in range(c):
                loss += sce(x[at + (5 + k) * hw], pos if k == label[i * b + t] else neg) * s
        for j in range(m):
            for p in range(hw):
                o = obj[(i * m + j) * hw + p]
                v = x[(i * m + j) * (5 + c) * hw + 4 * hw + p]
                if o > 1e-5:
                    loss += sce(v, 1.0) * o
                elif o > -0.5:
                    loss += sce(v, 0.0)
        return loss

    return image_loss


def _grad(jit, sce_grad, cell, size_targets):
    @jit
    def image_grad(x, gt, label, score, anchors, amask, i, b, c, h, w, input_size, pos, neg, obj, matched, dl, dx):
        """Adds d(loss[i])/dX * dl (Loss@GRAD[i]) into dx, from the forward's masks."""
        m = amask.size
        hw = h * w
        for t in range(b):
            j = matched[i * b + t]
            if j < 0:
                continue
            g = (i * b + t) * 4
            gi, gj, tx, ty = cell(gt, g, h, w)
            tw, th = size_targets(gt, g, anchors, amask[j], input_size)
            s = score[i * b + t]
            at = (i * m + j) * (5 + c) * hw + gj * w + gi
            scale = (2.0 - gt[g + 2] * gt[g + 3]) * s * dl
            dx[at] += sce_grad(x[at], tx) * scale
            dx[at + hw] += sce_grad(x[at + hw], ty) * scale
            dx[at + 2 * hw] += (1.0 if x[at + 2 * hw] > tw else -1.0) * scale
            dx[at + 3 * hw] += (1.0 if x[at + 3 * hw] > th else -1.0) * scale
            for k in range(c):
                dx[at + (5 + k) * hw] += sce_grad(x[at + (5 + k) * hw], pos if k == label[i * b + t] else neg) * s * dl
        for j in range(m):
            for p in range(hw):
                o = obj[(i * m + j) * hw + p]
                at = (i * m + j) * (5 + c) * hw + 4 * hw + p
                if o > 1e-5:
                    dx[at] += sce_grad(x[at], 1.0) * o * dl
                elif o > -0.5:
                    dx[at] += sce_grad(x[at], 0.0) * dl

    return image_grad
