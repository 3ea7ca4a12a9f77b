"""paddle.fft's ops, under Paddle 2.6's op types: fft_c2c (complex to complex, forward or inverse), fft_r2c
(real to complex: onesided, the rfft half; forward=False: the conjugate inverse, ihfft), fft_c2r (complex to
real: the inverse real transform, irfft, of last_dim_size (0: 2 (n - 1)); forward=True: hfft), over `axes`,
normalization "backward" (the inverse divides by n), "ortho" or "forward" (the forward divides). numpy's FFT
(kernels/<device>/fft.py). Their gradients are refused in one line: pe does not compute them yet."""

from ..base.errors import PeError
from ..kernels.cpu import fft as cpu_fft
from ..shapes import fft as meta_rules
from .define import Attr, Structured, fmt_shape, int_list, register
from .pointwise_math import QUANT

_NORM = Attr("backward", choices=("backward", "ortho", "forward"))
_AXES = Attr(list, int_list, "a list of axes")


def _refuse(name):
    def grad(g):
        raise PeError(
            f"{name}: pe does not compute its gradient (paddle.fft's gradients); train through other ops "
            f"or keep it out of the backward pass (stop_gradient)"
        )

    return grad


def _complex(dtype):
    return {"float32": "complex64", "float64": "complex128"}.get(dtype, dtype)


def _real(dtype):
    return {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)


def _check_axes(ctx, x):
    if not ctx.attrs["axes"] or any(not -len(x) <= a < len(x) for a in ctx.attrs["axes"]):
        ctx.fail(f"axes={list(ctx.attrs['axes'])} must be axes of X {fmt_shape(x)}")
    return [a % len(x) for a in ctx.attrs["axes"]]


def _infer_c2c(ctx):
    x = ctx.shape("X")
    _check_axes(ctx, x)
    ctx.set_output("Out", x, _complex(ctx.dtype("X")))


def _infer_r2c(ctx):
    x = list(ctx.shape("X"))
    axes = _check_axes(ctx, x)
    if ctx.attrs["onesided"] and x[axes[-1]] >= 0:
        x[axes[-1]] = x[axes[-1]] // 2 + 1
    ctx.set_output("Out", x, _complex(ctx.dtype("X")))


def _infer_c2r(ctx):
    x = list(ctx.shape("X"))
    axes = _check_axes(ctx, x)
    n = ctx.attrs["last_dim_size"]
    x[axes[-1]] = n if n > 0 else (2 * (x[axes[-1]] - 1) if x[axes[-1]] >= 0 else -1)
    ctx.set_output("Out", x, _real(ctx.dtype("X")))


for _name, _infer, _extra, _doc, _structured in (
    (
        "fft_c2c",
        _infer_c2c,
        {},
        "Out = the DFT of X over axes (forward) or its inverse.",
        Structured(meta=meta_rules.fft_c2c_meta, cpu=cpu_fft.FFT_C2C),
    ),
    (
        "fft_r2c",
        _infer_r2c,
        {"onesided": Attr(True, choices=(True, False))},
        "Out = the DFT of real X over axes (onesided: the last axis's first n // 2 + 1); forward=False: the "
        "conjugate of the inverse's (ihfft).",
        Structured(meta=meta_rules.fft_r2c_meta, cpu=cpu_fft.FFT_R2C),
    ),
    (
        "fft_c2r",
        _infer_c2r,
        {"last_dim_size": Attr(0, lambda v: isinstance(v, int) and v >= 0, "an int >= 0")},
        "Out = the real inverse DFT of Hermitian X over axes, the last of last_dim_size (irfft); forward=True: hfft.",
        Structured(meta=meta_rules.fft_c2r_meta, cpu=cpu_fft.FFT_C2R),
    ),
):
    register(
        _name,
        kernel_module="fft",
        inputs=["X"],
        outputs=["Out"],
        lod="drop",
        infer=_infer,
        grad=_refuse(_name),
        structured=_structured,
        attrs={"axes": _AXES, "normalization": _NORM, "forward": Attr(True, choices=(True, False)), **_extra, **QUANT},
        doc=_doc,
    )


def _infer_stft(ctx):
    x, w, a = ctx.shape("X"), ctx.shape("Window"), ctx.attrs
    if len(x) not in (1, 2) or list(w) not in ([a["n_fft"]], [-1]) or (x[-1] >= 0 and x[-1] < a["n_fft"]):
        ctx.fail(f"X {fmt_shape(x)} must be [B, T] (T >= n_fft = {a['n_fft']}) and Window {fmt_shape(w)} [n_fft]")
    if ctx.dtype("X") not in ("float32", "float64"):
        ctx.fail(f"X is {ctx.dtype('X')}: stft takes float32 or float64 X (Paddle 2.6.2's kernels)")
    frames = 1 + (x[-1] - a["n_fft"]) // a["hop_length"] if x[-1] >= 0 else -1
    bins = a["n_fft"] // 2 + 1 if a["onesided"] else a["n_fft"]
    ctx.set_output("Out", list(x[:-1]) + [bins, frames], _complex(ctx.dtype("X")))


register(
    "stft",
    kernel_module="fft",
    inputs=["X", "Window"],
    outputs=["Out"],
    lod="drop",
    infer=_infer_stft,
    grad=_refuse("stft"),
    structured=Structured(meta=meta_rules.stft_meta, cpu=cpu_fft.STFT),
    attrs={
        "n_fft": Attr(512, lambda v: isinstance(v, int) and v > 0, "an int > 0"),
        "hop_length": Attr(128, lambda v: isinstance(v, int) and v > 0, "an int > 0"),
        "normalized": Attr(False, choices=(False, True)),
        # a two-sided stft of real X fails in Paddle 2.6.2's kernel (a float32 buffer read as complex)
        "onesided": Attr(True, choices=(True,)),
        **QUANT,
    },
    doc="Out [B, bins, frames] = the DFT of each windowed frame of X (frames n_fft long, hop_length apart; "
    "bins n_fft // 2 + 1: onesided), ortho-normalized with normalized (paddle.signal.stft pads X first).",
)
