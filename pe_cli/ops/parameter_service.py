"""Ops served by Fluid 1.8's fleet parameter services, which need hardware or services pe does not run:
pull_box_sparse (BoxPS, Baidu's GPU parameter server, with its gradient push_box_sparse), pull_sparse and
pull_sparse_v2 (pslib's sparse tables, with push_sparse and push_sparse_v2) and push_dense (pslib's dense
tables). They are registered with Fluid's slots and attributes, so programs holding them build, save and
load; run, their kernels (kernels/<device>/parameter_service.py) say in one line what they need."""

from ..kernels.cpu import parameter_service as cpu
from ..shapes import services as metas
from .define import Attr, Structured, register


def _infer_pull(size_attr, drop_last):
    """Out[i] = Ids[i]'s dims (less its last, a 1, for the first forms) + [the embedding size]."""

    def infer(ctx):
        for i in range(ctx.num_inputs("Ids")):
            ids = list(ctx.shape("Ids", i))
            if drop_last:
                if not ids or ids[-1] != 1:
                    ctx.fail(f"Ids #{i} {ids} must end in a dim of 1")
                ids = ids[:-1]
            ctx.set_output(
                "Out", ids + [ctx.attrs[size_attr]], "float32", i=i, lod_level=ctx.input_var("Ids", i).lod_level
            )

    return infer


def _grad_push(push_type, with_w):
    def grad(g):
        dout = g.out_grad("Out")
        ins = {"Ids": g.input("Ids"), "Out@GRAD": dout, **({"W": g.input("W")} if with_w else {})}
        g.op(push_type, ins, {"Out@GRAD": dout}, g.attrs)

    return grad


_PSLIB = {
    "EmbeddingDim": 11,
    "TableId": 0,
    "AccessorClass": "",
    "CtrLabelName": "",
    "PaddingId": 0,
    "ScaleSparseGrad": True,
    "InputNames": Attr(list),
    "is_distributed": True,
}

register(
    "pull_box_sparse",
    kernel_module="parameter_service",
    structured=Structured(meta=metas.pull_box_sparse_meta, cpu=cpu.pull_box_sparse_out, python=True),
    inputs=["Ids*"],
    outputs=["Out*"],
    attrs={"size": Attr(1, lambda v: int(v) >= 1, ">= 1")},
    infer=_infer_pull("size", True),
    grad=_grad_push("push_box_sparse", False),
    grad_reads=("Ids",),
    doc="Out[i] = the BoxPS embeddings (size wide) of the ids Ids[i] [..., 1].",
)
register(
    "push_box_sparse",
    kernel_module="parameter_service",
    structured=Structured(meta=metas.push_meta, cpu=cpu.push_box_sparse_out, python=True),
    inputs=["Ids*", "Out@GRAD*"],
    outputs=["Out@GRAD*"],
    attrs={"size": 1},
    doc="Pushes the embeddings' gradients Out@GRAD of the ids Ids to BoxPS.",
)
for _type, _drop in (("pull_sparse", True), ("pull_sparse_v2", False)):
    register(
        _type,
        kernel_module="parameter_service",
        structured=Structured(meta=getattr(metas, _type + "_meta"), cpu=getattr(cpu, _type + "_out"), python=True),
        inputs=["Ids*", "W*"],
        outputs=["Out*"],
        attrs=dict(_PSLIB),
        infer=_infer_pull("EmbeddingDim", _drop),
        grad=_grad_push(_type.replace("pull", "push"), True),
        grad_reads=("Ids", "W"),
        doc=f"Out[i] = the EmbeddingDim-wide rows of pslib's sparse table TableId for the ids Ids[i] "
        f"({'[..., 1]' if _drop else 'any shape'}); W names the table's variable.",
    )
    register(
        _type.replace("pull", "push"),
        kernel_module="parameter_service",
        structured=Structured(
            meta=metas.push_meta, cpu=getattr(cpu, _type.replace("pull", "push") + "_out"), python=True
        ),
        inputs=["Ids*", "Out@GRAD*", "W*"],
        outputs=["Out@GRAD*"],
        attrs=dict(_PSLIB),
        doc="Pushes the rows' gradients Out@GRAD of the ids Ids to pslib's sparse table TableId.",
    )
register(
    "push_dense",
    kernel_module="parameter_service",
    structured=Structured(meta=metas.push_meta, cpu=cpu.push_dense_out, python=True),
    inputs=["Ids*"],
    outputs=[],
    attrs={"TableId": -1, "ScaleDataNorm": -1.0, "InputNames": Attr(list)},
    doc="Pushes the dense gradients InputNames to pslib's dense table TableId (Ids: the batch, for its size).",
)
