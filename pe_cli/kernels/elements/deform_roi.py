"""deformable_psroi_pooling's arithmetic per output element, written once and compiled twice (as
roi.py): ``make(jit, add)`` for numba.njit (cpu/_deform_roi_loops.py) or cuda.jit(device=True)
(kernels/cuda/detection_roi.py). Follows Fluid 1.8's deformable_psroi_pooling_op.h: bin (i, j)
of roi r, moved by Trans[r, class, :, part_i, part_j] * trans_std * the roi's size, averages
sample_per_part^2 bilinear samples of its channel group; samples outside [-0.5, size - 0.5] are
skipped. ``g`` holds the sizes: C, H, W, output_dim, PH, PW, group h, w, part h, w, sample_per_part,
classes, no_trans."""

import math


def make(jit, add):
    where = _where(jit)
    return {"at": _forward(jit, where), "back": _backward(jit, add, where)}


def _where(jit):
    @jit
    def c_round(v):
        return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)

    @jit
    def where(rois, trans, bid, i, g, scale, tstd):
        """(first sample x, y, sample steps, roi w, h, input plane offset, Trans index of x; -1: none)."""
        c, h, w, od, ph, pw, grh, grw, pth, ptw, spp, ncls, no_trans = (
            g[0],
            g[1],
            g[2],
            g[3],
            g[4],
            g[5],
            g[6],
            g[7],
            g[8],
            g[9],
            g[10],
            g[11],
            g[12],
        )
        q = i % pw
        p = (i // pw) % ph
        ct = (i // (pw * ph)) % od
        r = i // (pw * ph * od)
        sw = c_round(rois[4 * r]) * scale - 0.5
        sh = c_round(rois[4 * r + 1]) * scale - 0.5
        rw = max((c_round(rois[4 * r + 2]) + 1.0) * scale - 0.5 - sw, 0.1)
        rh = max((c_round(rois[4 * r + 3]) + 1.0) * scale - 0.5 - sh, 0.1)
        part_i = int(math.floor(p / ph * pth))
        part_j = int(math.floor(q / pw * ptw))
        cls = ct // (od // ncls)
        at = -1
        tx, ty = 0.0, 0.0
        if not no_trans:
            at = (((r * ncls + cls) * 2) * pth + part_i) * ptw + part_j
            tx = trans[at] * tstd
            ty = trans[at + pth * ptw] * tstd
        gi = min(max(int(math.floor(p * grh / ph)), 0), grh - 1)
        gj = min(max(int(math.floor(q * grw / pw)), 0), grw - 1)
        base = (bid[r] * c + (ct * grh + gi) * grw + gj) * h * w
        return (
            q * (rw / pw) + sw + tx * rw,
            p * (rh / ph) + sh + ty * rh,
            rw / pw / spp,
            rh / ph / spp,
            rw,
            rh,
            base,
            at,
        )

    return where


def _forward(jit, where):
    @jit
    def at(x, rois, trans, bid, i, g, scale, tstd):
        """(the bin's mean of its samples, how many were inside)."""
        h, w, spp = g[1], g[2], g[10]
        x0, y0, dx, dy, rw, rh, base, t = where(rois, trans, bid, i, g, scale, tstd)
        total, n = 0.0, 0
        for a in range(spp):
            for b in range(spp):
                sx = x0 + b * dx
                sy = y0 + a * dy
                if sx < -0.5 or sx > w - 0.5 or sy < -0.5 or sy > h - 0.5:
                    continue
                sx = min(max(sx, 0.0), w - 1.0)
                sy = min(max(sy, 0.0), h - 1.0)
                xl, xh, yl, yh = int(math.floor(sx)), int(math.ceil(sx)), int(math.floor(sy)), int(math.ceil(sy))
                fx, fy = sx - xl, sy - yl
                total += (
                    (1 - fx) * (1 - fy) * x[base + yl * w + xl]
                    + (1 - fx) * fy * x[base + yh * w + xl]
                    + fx * (1 - fy) * x[base + yl * w + xh]
                    + fx * fy * x[base + yh * w + xh]
                )
                n += 1
        return (total / n if n else 0.0), n

    return at


def _backward(jit, add, where):
    @jit
    def back(gout, x, rois, trans, bid, i, g, scale, tstd, dx_, dtrans):
        """Adds the bin's share of ``gout`` into dx_ and (with Trans) dtrans."""
        h, w, spp, pth, ptw = g[1], g[2], g[10], g[8], g[9]
        x0, y0, ddx, ddy, rw, rh, base, t = where(rois, trans, bid, i, g, scale, tstd)
        n = 0
        for a in range(spp):
            for b in range(spp):
                sx, sy = x0 + b * ddx, y0 + a * ddy
                if not (sx < -0.5 or sx > w - 0.5 or sy < -0.5 or sy > h - 0.5):
                    n += 1
        if n == 0:
            return
        share = gout / n
        for a in range(spp):
            for b in range(spp):
                sx, sy = x0 + b * ddx, y0 + a * ddy
                if sx < -0.5 or sx > w - 0.5 or sy < -0.5 or sy > h - 0.5:
                    continue
                cx, cy = min(max(sx, 0.0), w - 1.0), min(max(sy, 0.0), h - 1.0)
                xl, xh, yl, yh = int(math.floor(cx)), int(math.ceil(cx)), int(math.floor(cy)), int(math.ceil(cy))
                fx, fy = cx - xl, cy - yl
                add(dx_, base + yl * w + xl, (1 - fx) * (1 - fy) * share)
                add(dx_, base + yh * w + xl, (1 - fx) * fy * share)
                add(dx_, base + yl * w + xh, fx * (1 - fy) * share)
                add(dx_, base + yh * w + xh, fx * fy * share)
                if t < 0:
                    continue
                u00, u01 = x[base + yl * w + xl], x[base + yh * w + xl]
                u10, u11 = x[base + yl * w + xh], x[base + yh * w + xh]
                if cx == sx:  # a clamped sample does not move with Trans
                    add(dtrans, t, ((u10 - u00) * (1 - fy) + (u11 - u01) * fy) * tstd * rw * share)
                if cy == sy:
                    add(dtrans, t + pth * ptw, ((u01 - u00) * (1 - fx) + (u11 - u10) * fx) * tstd * rh * share)

    return back
