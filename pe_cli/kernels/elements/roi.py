"""The per-element arithmetic of the RoI ops (ops/detection_roi.py), written once and compiled twice:
``make(jit, add, f32)`` returns the functions compiled by ``jit`` (numba.njit for the CPU loops in
cpu/_roi_loops.py, cuda.jit(device=True) for kernels/cuda/detection_roi.py), with ``add(array, index,
value)`` the scatter-add of the gradients (``+=`` on the CPU, an atomic add on CUDA) and ``f32``
numba's float32 (roi_pool's bin sizes are float32 in Fluid, and its windows' edges follow them).

Arrays are flat: X [N, C, H, W], ROIs [R, 4] (x1, y1, x2, y2), ``bid`` [R] each roi's image, outputs
[R, C', PH, PW] indexed by ``i``. Formulas follow Fluid 1.8's roi_pool_op.h, roi_align_op.h,
psroi_pool_op.h and prroi_pool_op.h."""

import math


def make(jit, add, f32):
    """The element functions compiled with ``jit`` (a dict by name)."""
    c_round, unravel = _common(jit)
    fns = {"roi_pool_at": _roi_pool(jit, f32, c_round, unravel)}
    fns.update(_roi_align(jit, add, unravel, *_align_parts(jit)))
    fns.update(_psroi(jit, add, c_round, unravel))
    fns.update(_prroi(jit, unravel, *_pr_parts(jit, add)))
    return fns


def _common(jit):
    @jit
    def c_round(v):
        """C's round(): halves away from zero."""
        return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)

    @jit
    def unravel(i, c, ph, pw):
        return i // (pw * ph * c), (i // (pw * ph)) % c, (i // pw) % ph, i % pw

    return c_round, unravel


def _roi_pool(jit, f32, c_round, unravel):
    # -- roi_pool: max over integer bins -----------------------------------------------------------
    @jit
    def roi_pool_at(x, rois, bid, i, c, h, w, ph, pw, scale):
        """(max, its index in the H*W plane, or -1 for an empty bin whose output is 0)."""
        r, ch, p, q = unravel(i, c, ph, pw)
        x1 = int(c_round(rois[4 * r] * scale))
        y1 = int(c_round(rois[4 * r + 1] * scale))
        x2 = int(c_round(rois[4 * r + 2] * scale))
        y2 = int(c_round(rois[4 * r + 3] * scale))
        bh = f32(max(y2 - y1 + 1, 1)) / f32(ph)
        bw = f32(max(x2 - x1 + 1, 1)) / f32(pw)
        hs = min(max(int(math.floor(f32(p) * bh)) + y1, 0), h)
        he = min(max(int(math.ceil(f32(p + 1) * bh)) + y1, 0), h)
        ws = min(max(int(math.floor(f32(q) * bw)) + x1, 0), w)
        we = min(max(int(math.ceil(f32(q + 1) * bw)) + x1, 0), w)
        if he <= hs or we <= ws:
            return 0.0, -1
        base = (bid[r] * c + ch) * h * w
        at = hs * w + ws
        best = x[base + at]
        for yy in range(hs, he):
            for xx in range(ws, we):
                v = x[base + yy * w + xx]
                if v > best:
                    best = v
                    at = yy * w + xx
        return best, at

    return roi_pool_at


def _align_parts(jit):
    # -- roi_align: the mean of bilinear samples on a grid per bin -------------------------------
    @jit
    def corners(h, w, y, x):
        """Fluid's bilinear taps at (y, x): (inside, yl, yh, xl, xh, ly, lx); outside [-1, H] x
        [-1, W] reads 0, below 0 clamps to 0, past the last row/column clamps to it."""
        if y < -1.0 or y > h or x < -1.0 or x > w:
            return False, 0, 0, 0, 0, 0.0, 0.0
        y = max(y, 0.0)
        x = max(x, 0.0)
        yl = int(y)
        xl = int(x)
        if yl >= h - 1:
            yl = h - 1
            yh = yl
            y = float(yl)
        else:
            yh = yl + 1
        if xl >= w - 1:
            xl = w - 1
            xh = xl
            x = float(xl)
        else:
            xh = xl + 1
        return True, yl, yh, xl, xh, y - yl, x - xl

    @jit
    def align_geometry(rois, r, p, q, ph, pw, scale, ratio, aligned):
        """(y of the bin's first sample row, x of its first column, sample steps dy, dx, grid gh, gw). ``aligned``
        (Paddle 2.x's): the roi shifted by half a cell, and not widened to at least one cell."""
        offset = 0.5 if aligned else 0.0
        xmin = rois[4 * r] * scale - offset
        ymin = rois[4 * r + 1] * scale - offset
        rw = rois[4 * r + 2] * scale - offset - xmin
        rh = rois[4 * r + 3] * scale - offset - ymin
        if not aligned:
            rw = max(rw, 1.0)
            rh = max(rh, 1.0)
        bh = rh / ph
        bw = rw / pw
        gh = ratio if ratio > 0 else int(math.ceil(rh / ph))
        gw = ratio if ratio > 0 else int(math.ceil(rw / pw))
        return ymin + p * bh + 0.5 * bh / gh, xmin + q * bw + 0.5 * bw / gw, bh / gh, bw / gw, gh, gw

    return corners, align_geometry


def _roi_align(jit, add, unravel, corners, align_geometry):
    @jit
    def roi_align_at(x, rois, bid, i, c, h, w, ph, pw, scale, ratio, aligned):
        r, ch, p, q = unravel(i, c, ph, pw)
        y0, x0, dy, dx, gh, gw = align_geometry(rois, r, p, q, ph, pw, scale, ratio, aligned)
        base = (bid[r] * c + ch) * h * w
        acc = 0.0
        for iy in range(gh):
            for ix in range(gw):
                ok, yl, yh, xl, xh, ly, lx = corners(h, w, y0 + iy * dy, x0 + ix * dx)
                if ok:
                    acc += (1 - ly) * ((1 - lx) * x[base + yl * w + xl] + lx * x[base + yl * w + xh]) + ly * (
                        (1 - lx) * x[base + yh * w + xl] + lx * x[base + yh * w + xh]
                    )
        if gh * gw == 0:  # (an empty aligned roi: Paddle's 0 * (1 / 0))
            return math.nan
        return acc / (gh * gw)

    @jit
    def roi_align_back(g, rois, bid, i, c, h, w, ph, pw, scale, ratio, aligned, dx_):
        r, ch, p, q = unravel(i, c, ph, pw)
        y0, x0, dy, dx, gh, gw = align_geometry(rois, r, p, q, ph, pw, scale, ratio, aligned)
        base = (bid[r] * c + ch) * h * w
        share = g / max(gh * gw, 1)
        for iy in range(gh):
            for ix in range(gw):
                ok, yl, yh, xl, xh, ly, lx = corners(h, w, y0 + iy * dy, x0 + ix * dx)
                if ok:
                    add(dx_, base + yl * w + xl, share * (1 - ly) * (1 - lx))
                    add(dx_, base + yl * w + xh, share * (1 - ly) * lx)
                    add(dx_, base + yh * w + xl, share * ly * (1 - lx))
                    add(dx_, base + yh * w + xh, share * ly * lx)

    return {"roi_align_at": roi_align_at, "roi_align_back": roi_align_back}


def _psroi(jit, add, c_round, unravel):
    # -- psroi_pool: the mean of a bin read from its own channel group ------------------------------
    @jit
    def ps_window(rois, r, p, q, ph, pw, scale, h, w):
        sw = c_round(rois[4 * r]) * scale
        sh = c_round(rois[4 * r + 1]) * scale
        rw = max((c_round(rois[4 * r + 2]) + 1.0) * scale - sw, 0.1)
        rh = max((c_round(rois[4 * r + 3]) + 1.0) * scale - sh, 0.1)
        bh = rh / ph
        bw = rw / pw
        hs = min(max(int(math.floor(p * bh + sh)), 0), h)
        he = min(max(int(math.ceil((p + 1) * bh + sh)), 0), h)
        ws = min(max(int(math.floor(q * bw + sw)), 0), w)
        we = min(max(int(math.ceil((q + 1) * bw + sw)), 0), w)
        return hs, he, ws, we

    @jit
    def psroi_at(x, rois, bid, i, oc, c, h, w, ph, pw, scale):
        r, ch, p, q = unravel(i, oc, ph, pw)
        hs, he, ws, we = ps_window(rois, r, p, q, ph, pw, scale, h, w)
        if he <= hs or we <= ws:
            return 0.0
        base = (bid[r] * c + (ch * ph + p) * pw + q) * h * w
        acc = 0.0
        for yy in range(hs, he):
            for xx in range(ws, we):
                acc += x[base + yy * w + xx]
        return acc / ((he - hs) * (we - ws))

    @jit
    def psroi_back(g, rois, bid, i, oc, c, h, w, ph, pw, scale, dx_):
        r, ch, p, q = unravel(i, oc, ph, pw)
        hs, he, ws, we = ps_window(rois, r, p, q, ph, pw, scale, h, w)
        if he <= hs or we <= ws:
            return
        base = (bid[r] * c + (ch * ph + p) * pw + q) * h * w
        share = g / ((he - hs) * (we - ws))
        for yy in range(hs, he):
            for xx in range(ws, we):
                add(dx_, base + yy * w + xx, share)

    return {"psroi_at": psroi_at, "psroi_back": psroi_back}


def _pr_parts(jit, add):
    # -- prroi_pool: the exact integral of the bilinear surface over the bin, over its area ------
    @jit
    def pr_window(rois, r, p, q, ph, pw, scale):
        xs = rois[4 * r] * scale
        ys = rois[4 * r + 1] * scale
        bw = max(rois[4 * r + 2] * scale - xs, 0.0) / pw
        bh = max(rois[4 * r + 3] * scale - ys, 0.0) / ph
        return ys + p * bh, xs + q * bw, bh, bw

    @jit
    def ramp(a, b):
        """The integral over [a, b] of (1 - t): the weight a unit cell's near corner gets."""
        return b - 0.5 * b * b - a + 0.5 * a * a

    @jit
    def pr_cell(yi, xi, y0, x0, y1, x1):
        """The weights of the cell [yi, yi+1] x [xi, xi+1]'s corners (top-left, top-right,
        bottom-left, bottom-right) over its part [y0, y1] x [x0, x1]."""
        gys = ramp(y0 - yi, y1 - yi)
        gye = ramp(yi + 1 - y1, yi + 1 - y0)
        gxs = ramp(x0 - xi, x1 - xi)
        gxe = ramp(xi + 1 - x1, xi + 1 - x0)
        return gys * gxs, gys * gxe, gye * gxs, gye * gxe

    @jit
    def pr_read(x, base, h, w, yy, xx):
        if yy < 0 or xx < 0 or yy >= h or xx >= w:
            return 0.0
        return x[base + yy * w + xx]

    @jit
    def pr_add(dx_, base, h, w, yy, xx, v):
        if yy >= 0 and xx >= 0 and yy < h and xx < w:
            add(dx_, base + yy * w + xx, v)

    return pr_window, pr_cell, pr_read, pr_add


def _prroi(jit, unravel, pr_window, pr_cell, pr_read, pr_add):
    @jit
    def prroi_at(x, rois, bid, i, c, h, w, ph, pw, scale):
        r, ch, p, q = unravel(i, c, ph, pw)
        ys, xs, bh, bw = pr_window(rois, r, p, q, ph, pw, scale)
        area = max(0.0, bh * bw)
        if area <= 0:
            return 0.0
        base = (bid[r] * c + ch) * h * w
        acc = 0.0
        for xi in range(int(math.floor(xs)), int(math.ceil(xs + bw))):
            for yi in range(int(math.floor(ys)), int(math.ceil(ys + bh))):
                a, b, cc, d = pr_cell(yi, xi, max(ys, yi), max(xs, xi), min(ys + bh, yi + 1.0), min(xs + bw, xi + 1.0))
                acc += (
                    a * pr_read(x, base, h, w, yi, xi)
                    + b * pr_read(x, base, h, w, yi, xi + 1)
                    + cc * pr_read(x, base, h, w, yi + 1, xi)
                    + d * pr_read(x, base, h, w, yi + 1, xi + 1)
                )
        return acc / area

    @jit
    def prroi_back(g, rois, bid, i, c, h, w, ph, pw, scale, dx_):
        r, ch, p, q = unravel(i, c, ph, pw)
        ys, xs, bh, bw = pr_window(rois, r, p, q, ph, pw, scale)
        area = max(0.0, bh * bw)
        if area <= 0:
            return
        base = (bid[r] * c + ch) * h * w
        share = g / area
        for xi in range(int(math.floor(xs)), int(math.ceil(xs + bw))):
            for yi in range(int(math.floor(ys)), int(math.ceil(ys + bh))):
                a, b, cc, d = pr_cell(yi, xi, max(ys, yi), max(xs, xi), min(ys + bh, yi + 1.0), min(xs + bw, xi + 1.0))
                pr_add(dx_, base, h, w, yi, xi, share * a)
                pr_add(dx_, base, h, w, yi, xi + 1, share * b)
                pr_add(dx_, base, h, w, yi + 1, xi, share * cc)
                pr_add(dx_, base, h, w, yi + 1, xi + 1, share * d)

    return {"prroi_at": prroi_at, "prroi_back": prroi_back}
