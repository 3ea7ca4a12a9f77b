"""Tensors read from files at run time (kernels in kernels/<device>/tensor_file.py): load (Fluid 1.8's
``layers.load``), one LoDTensor from the file ``file_path`` as Fluid's ``save`` op and ``save_vars`` write it
(pe_cli/base/lod_tensor_file.py), into Out, with its LoD; ``load_as_fp16`` gives it as float16."""
from .define import Attr, register


def _infer_load(ctx):
    """The file is read when the op runs: Out keeps the shape and dtype its variable was declared with."""
    if not ctx.attrs["file_path"]:
        ctx.fail("file_path is empty; give the file a save op (or save_vars) wrote")


register("load", kernel_module="tensor_file", inputs=[], outputs=["Out"],
         attrs={"file_path": "", "load_as_fp16": False, "model_from_memory": False, "seek": -1, "shape": Attr([])},
         infer=_infer_load,
         # (it has no input: needs_lod makes the executor pass the LoD the kernel read from the file on)
         needs_lod=True, lod="drop",
         doc="Out = the LoDTensor (values and LoD) serialized in the file file_path (float16 with load_as_fp16); "
             "with seek >= 0, the `shape` values of it that start at value `seek` (row-major), as Fluid's.")
