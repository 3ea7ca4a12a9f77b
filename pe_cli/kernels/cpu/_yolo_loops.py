"""numba loops of the yolov3_loss kernels (detection_yolo.py; imported on first use: see runtime/loops.py):
one pass over the images, each computed by elements/yolo.py's functions.
numba caches the loops beside this file and keys them on it alone: after a change to elements/yolo.py,
remove __pycache__/_yolo_loops.* (as for any cached loop calling another module's function)."""

import numba

from ..elements.yolo import make
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

# IEEE arithmetic, as Fluid's kernel: a downsample_ratio of 0 divides by 0 into inf (error_model numpy)
_E = make(numba.njit(nogil=True, error_model="numpy"))
_image_loss, _image_grad = _E["image_loss"], _E["image_grad"]


@numba.njit(cache=True, nogil=True, error_model="numpy")
def yolov3_loss(x, gt, label, score, anchors, amask, b, c, h, w, input_size, thresh, sxy, pos, neg, loss, obj, matched):
    for i in range(loss.size):
        loss[i] = _image_loss(
            x, gt, label, score, anchors, amask, i, b, c, h, w, input_size, thresh, sxy, pos, neg, obj, matched
        )


@numba.njit(cache=True, nogil=True, error_model="numpy")
def yolov3_loss_grad(x, gt, label, score, anchors, amask, b, c, h, w, input_size, pos, neg, obj, matched, dloss, dx):
    for i in range(dloss.size):
        _image_grad(
            x, gt, label, score, anchors, amask, i, b, c, h, w, input_size, pos, neg, obj, matched, dloss[i], dx
        )
