"""ctc_align (Fluid 1.8), the decoding step of ctc_greedy_decoder: per sequence, drop the blank id
and (merge_repeated) each id equal to the step before it. Sequences come from the LoD of Input
[T, 1], or padded [N, T] with InputLength. No gradient (kernels in kernels/<device>/ctc.py)."""
from .define import fmt_shape, register


def _infer_ctc_align(ctx):
    x, var = ctx.shape("Input"), ctx.input_var("Input")
    if var.dtype not in ("int32", "int64"):
        ctx.fail(f"Input is {var.dtype}; it holds int ids (top_k's indices)")
    if ctx.has_input("InputLength"):
        if len(x) != 2:
            ctx.fail(f"Input {fmt_shape(x)} must be [N, T] padded ids with InputLength")
        ctx.set_output("Output", x, var.dtype)
        ctx.set_output("OutputLength", [x[0], 1], "int64")
        return
    if var.lod_level < 1 or len(x) != 2 or x[1] not in (1, -1):
        ctx.fail(f"Input {fmt_shape(x)} must be [T, 1] ids with a LoD (lod_level 1), or padded [N, T] with "
                 f"InputLength")
    ctx.set_output("Output", [-1, 1], var.dtype, lod_level=1)


register("ctc_align", kernel_module="ctc", inputs=["Input", "InputLength?"], outputs=["Output", "OutputLength?"],
         attrs={"blank": 0, "merge_repeated": True, "padding_value": 0}, infer=_infer_ctc_align, lod="drop",
         needs_lod=True,
         doc="Output = each sequence of Input without its blank ids and, with merge_repeated, without ids "
             "equal to the step before (a blank between two equal ids keeps both). LoD input: Output's LoD "
             "counts what is left (all sequences empty: Output is [[-1]], as Fluid); padded input: Output "
             "[N, T] padded with padding_value, OutputLength [N, 1].")
