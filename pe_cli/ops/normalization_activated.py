"""inplace_abn (Fluid 1.8's in-place activated batch norm; kernels in kernels/<device>/normalization_activated.py):
Y = act(batch_norm(X)) with act identity, leaky_relu or elu (alpha). Its gradient op reads Y, not X, as
Fluid's (which writes Y over X): it inverts act on Y for the normalized value, and from it X's."""

from ..kernels.cpu import normalization_activated as cpu_abn
from ..shapes.normalization_activated import inplace_abn_grad_meta, inplace_abn_meta
from ..shapes.structured import Structured
from .define import Attr, grads_like, register
from .normalization import _BN_ATTRS, infer_batch_norm

_ABN_ATTRS = dict(
    _BN_ATTRS,
    use_mkldnn=False,
    activation=Attr("", choices=("", "identity", "leaky_relu", "elu")),
    alpha=0.1,
    use_sync_bn=False,
)


def _grad_abn(g):
    ins = {
        "Y": g.output("Y"),
        "Y@GRAD": g.out_grad("Y"),
        "Scale": g.input("Scale"),
        "Bias": g.input("Bias"),
        "SavedMean": g.output("SavedMean"),
        "SavedVariance": g.output("SavedVariance"),
    }
    if g.attrs["use_global_stats"]:
        ins.update(Mean=g.output("MeanOut"), Variance=g.output("VarianceOut"))
    g.op(
        "inplace_abn_grad",
        ins,
        {"X@GRAD": g.in_grad("X"), "Scale@GRAD": g.in_grad("Scale"), "Bias@GRAD": g.in_grad("Bias")},
        g.attrs,
    )


register(
    "inplace_abn",
    kernel_module="normalization_activated",
    inputs=["X", "Scale", "Bias", "Mean", "Variance", "MomentumTensor?"],
    outputs=["Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance", "ReserveSpace?"],
    attrs=_ABN_ATTRS,
    attr_tensors={"MomentumTensor": "momentum"},
    infer=infer_batch_norm,
    grad=_grad_abn,
    grad_reads=("Y", "Scale", "Bias", "SavedMean", "SavedVariance"),  # (+ MeanOut, VarianceOut: persistable)
    traits=("batch_statistics",),
    doc="Y = act(batch_norm(X)): batch_norm's statistics and outputs, then identity, leaky_relu (x >= 0 ? x : "
    "alpha * x) or elu (x > 0 ? x : alpha * (exp(x) - 1)).",
    structured=Structured(meta=inplace_abn_meta, cpu=cpu_abn.INPLACE_ABN),
)
register(
    "inplace_abn_grad",
    kernel_module="normalization_activated",
    inputs=["Y", "Y@GRAD", "Scale", "Bias", "SavedMean", "SavedVariance", "Mean?", "Variance?"],
    outputs=["X@GRAD", "Scale@GRAD?", "Bias@GRAD?"],
    attrs=_ABN_ATTRS,
    infer=grads_like({"X@GRAD": "Y", "Scale@GRAD": "Scale", "Bias@GRAD": "Scale"}),
    structured=Structured(meta=inplace_abn_grad_meta, cpu=cpu_abn.INPLACE_ABN_GRAD),
)
