"""CUDA twins of kernels/cpu/convolution.py.

conv2d is im2col + the tiled matmul (batched over groups), as on the CPU; its input gradient is the
transposed product followed by col2im written as a gather (each input element sums the columns
that read it: deterministic, no atomics). The device code is in _conv.py; this module launches it.
conv2d_transpose is the CPU's role swap over these kernels; deformable_conv runs the CPU kernels on
the host.
"""
from ..common import ConvGeometry
from ..cpu import convolution as _cpu_conv
from ..cpu.convolution import transpose_kernels
from ..fused_math import both_grads, relu_first
from . import activation
from . import runtime as rt
from . import _conv
from ._host import on_host as _on_host
from ._launch import flat, grid
from ._matmul import matmul

# -- conv2d -----------------------------------------------------------------------------------------


def _geometry(x, w, attrs):
    return ConvGeometry(tuple(x.shape), tuple(w.shape), attrs)


def _conv2d(ins, attrs):
    x, w = ins["Input"], ins["Filter"]
    geo = _geometry(x, w, attrs)
    n, m = x.shape[0], w.shape[0]
    out = matmul(w.reshape((geo.groups, m // geo.groups, w.size // m)), _conv.columns(x, geo))   # [G, M/G, N*Ho*Wo]
    return {"Output": _conv.swap01(out.reshape((m, n, geo.ho, geo.wo)))}


def _conv2d_grad_filter(ins, attrs):
    x, w, dout = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    geo = _geometry(x, w, attrs)
    dw = matmul(_conv.dout_matrix(dout, geo), _conv.columns(x, geo), trans_b=True)          # [G, M/G, C/G*kh*kw]
    return {"Filter@GRAD": dw.reshape(tuple(w.shape))}


def _conv2d_grad_input(ins, attrs):
    x, w, dout = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    geo = _geometry(x, w, attrs)
    n, c, h, wd = x.shape
    m = w.shape[0]
    wmat = w.reshape((geo.groups, m // geo.groups, w.size // m))
    dcols = matmul(wmat, _conv.dout_matrix(dout, geo), trans_a=True)               # [G, C/G*kh*kw, N*Ho*Wo]
    dx = rt.empty(x.shape, x.dtype)
    _conv.col2im[grid(dx.size)](flat(dcols), flat(dx), c, h, wd, geo.kh, geo.kw, geo.sh, geo.sw, geo.dh, geo.dw,
                                geo.pads[0], geo.pads[2], n, geo.ho, geo.wo)
    return {"Input@GRAD": dx}


conv2d, conv2d_grad_input, conv2d_grad_filter = relu_first(activation, _conv2d, _conv2d_grad_input,
                                                            _conv2d_grad_filter)
conv2d_grad = both_grads(conv2d_grad_input, conv2d_grad_filter)


# -- conv2d_transpose: the CPU's role swap over the CUDA conv2d kernels -----------------------------

conv2d_transpose, conv2d_transpose_grad_input, conv2d_transpose_grad_filter = transpose_kernels(
    conv2d, conv2d_grad_input, conv2d_grad_filter)


# -- deformable_conv: the CPU kernels run on the host, the results copied over (a device im2col for
# deformable taps is not written yet) --------------------------------------------------------------

deformable_conv = _on_host(_cpu_conv.deformable_conv)
deformable_conv_grad = _on_host(_cpu_conv.deformable_conv_grad)
