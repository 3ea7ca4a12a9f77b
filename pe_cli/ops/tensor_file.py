"""Tensors written to and read from files at run time (kernels in kernels/<device>/tensor_file.py), in the
formats of Fluid 1.8's ops of these names (pe_cli/base/lod_tensor_file.py):

- save: X (a LoDTensor with its LoD, or a SelectedRows) into the file ``file_path`` (its directories
  made; an existing file refused unless ``overwrite``; ``save_as_fp16`` writes a float tensor as float16);
- save_combine: every X, in order, end to end in one file (or, with ``save_to_memory``, into Y as bytes);
- load: Out from such a file (``seek``/``shape``: the ``shape`` values from value ``seek`` on, row-major,
  as Fluid's); load_combine: every Out, in order, from one file that they must fill exactly
  (``model_from_memory``: ``file_path`` holds the bytes themselves); ``load_as_fp16`` gives float16;
- read_file (Paddle 2.x's, paddle.vision.ops.read_file): Out the bytes of the file ``filename``, uint8."""

from ..kernels.cpu import tensor_file as cpu_file
from ..shapes import tensor_file as metas
from .define import Attr, Structured, register


def _infer_load(ctx):
    """The file is read when the op runs: the outputs keep the shapes and dtypes their variables were
    declared with."""
    if not ctx.attrs["file_path"]:
        ctx.fail("file_path is empty; give the file a save op (or save_vars) wrote")


def _infer_save(ctx):
    if not ctx.attrs["file_path"] and not ctx.attrs.get("save_to_memory"):
        ctx.fail("file_path is empty; give the file to save to")


register(
    "load",
    kernel_module="tensor_file",
    inputs=[],
    outputs=["Out"],
    attrs={
        "file_path": "",
        "load_as_fp16": False,
        "model_from_memory": False,
        "seek": Attr(-1, long=True),
        "shape": Attr([], long=True),
    },
    infer=_infer_load,
    # (it has no input: needs_lod makes the executor pass the LoD the kernel read from the file on)
    needs_lod=True,
    lod="drop",
    traits=("row_sparse_outputs",),
    structured=Structured(meta=metas.load_meta, cpu=cpu_file.load_out, python=True),
    doc="Out = the LoDTensor (values and LoD) serialized in the file file_path (float16 with load_as_fp16); "
    "with seek >= 0, the `shape` values of it that start at value `seek` (row-major), as Fluid's. An Out declared "
    "SELECTED_ROWS: the SelectedRows the file holds (save's format; Paddle's load_sr kernel, which reads no seek "
    "or load_as_fp16).",
)
register(
    "load_combine",
    kernel_module="tensor_file",
    inputs=[],
    outputs=["Out*"],
    attrs={"file_path": "", "load_as_fp16": False, "model_from_memory": False},
    infer=_infer_load,
    needs_lod=True,
    lod="drop",
    traits=("output_counts",),
    structured=Structured(meta=metas.load_combine_meta, cpu=cpu_file.load_combine_out, python=True),
    doc="Out[i] = the i-th LoDTensor serialized in the file file_path (or in the bytes file_path holds, "
    "with model_from_memory), which must hold exactly len(Out) of them.",
)
register(
    "save",
    kernel_module="tensor_file",
    inputs=["X"],
    outputs=["kLookupTablePath?"],
    attrs={"file_path": "", "overwrite": True, "save_as_fp16": False},
    infer=_infer_save,
    needs_lod=True,
    lod="drop",
    traits=("selected_rows",),
    structured=Structured(meta=metas.save_meta, cpu=cpu_file.save_out, python=True),
    doc="Writes X (its values and LoD, or a SelectedRows' rows, height and values) to the file file_path.",
)
register(
    "save_combine",
    kernel_module="tensor_file",
    inputs=["X*"],
    outputs=["Y?"],
    attrs={"file_path": "", "overwrite": True, "save_as_fp16": False, "save_to_memory": False},
    infer=_infer_save,
    needs_lod=True,
    lod="drop",
    structured=Structured(meta=metas.save_combine_meta, cpu=cpu_file.save_combine_out, python=True),
    doc="Writes every X, in order, end to end to the file file_path (or, with save_to_memory, as bytes into Y).",
)


def _infer_read_file(ctx):
    if not ctx.attrs["filename"]:
        ctx.fail("filename is empty; give the file to read")
    ctx.set_output("Out", [-1], "uint8")


register(
    "read_file",
    kernel_module="tensor_file",
    inputs=[],
    outputs=["Out"],
    attrs={"filename": "", "with_quant_attr": False},
    infer=_infer_read_file,
    lod="drop",
    structured=Structured(meta=metas.read_file_meta, cpu=cpu_file.read_file_out, python=True),
    doc="Out = the bytes of the file filename, one uint8 each.",
)
