"""Spatial transformer ops of Fluid 1.8: affine_grid (sampling grids from affine transforms) and
grid_sampler (bilinear sampling of images at grid points) (kernels in kernels/<device>/spatial.py)."""
from .define import Attr, fmt_shape, grads_like, int_list, register


def _infer_affine_grid(ctx):
    theta = ctx.shape("Theta")
    if len(theta) != 3 or tuple(theta[1:]) != (2, 3):
        ctx.fail(f"Theta {fmt_shape(theta)} must be [N, 2, 3]")
    if ctx.has_input("OutputShape"):
        ctx.set_output("Output", [theta[0], -1, -1, 2], ctx.dtype("Theta"))
        return
    shape = list(ctx.attrs["output_shape"])
    if len(shape) != 4 or min(shape[2:]) <= 0:
        ctx.fail(f"output_shape={shape} must be [N, C, H, W] with H, W > 0 (or give OutputShape)")
    ctx.set_output("Output", [theta[0], shape[2], shape[3], 2], ctx.dtype("Theta"))


def _grad_affine_grid(g):
    ins = {"Theta": g.input("Theta"), "Output@GRAD": g.out_grad("Output")}
    if g.input("OutputShape"):
        ins["OutputShape"] = g.input("OutputShape")
    g.op("affine_grid_grad", ins, {"Theta@GRAD": g.in_grad("Theta")}, g.attrs)


_AG_ATTRS = {"output_shape": Attr(list, int_list, "[N, C, H, W]"), "use_cudnn": True,
             "align_corners": Attr(True, choices=(False, True))}
register("affine_grid", kernel_module="spatial", inputs=["Theta", "OutputShape?"], outputs=["Output"],
         attrs=_AG_ATTRS, infer=_infer_affine_grid, grad=_grad_affine_grid, grad_reads=("OutputShape", "Theta"),
         lod="drop",
         doc="Output[n, h, w] = Theta[n] @ (x_w, y_h, 1): the points of an H x W grid spanning [-1, 1] "
             "(align_corners; else the pixel centres), moved by each affine Theta [2, 3]; the size is "
             "output_shape [N, C, H, W] or the int32 OutputShape input at run time.")
register("affine_grid_grad", kernel_module="spatial", inputs=["Theta", "OutputShape?", "Output@GRAD"],
         outputs=["Theta@GRAD"], attrs=_AG_ATTRS, infer=grads_like({"Theta@GRAD": "Theta"}))


def _infer_grid_sampler(ctx):
    x, grid = ctx.shape("X"), ctx.shape("Grid")
    if len(x) != 4 or len(grid) != 4 or grid[3] not in (2, -1) or (x[0] >= 0 and grid[0] >= 0 and x[0] != grid[0]):
        ctx.fail(f"X {fmt_shape(x)} must be [N, C, H, W] and Grid {fmt_shape(grid)} [N, H_out, W_out, 2]")
    if ctx.dtype("Grid") != ctx.dtype("X"):
        ctx.fail(f"Grid is {ctx.dtype('Grid')} but X is {ctx.dtype('X')}")
    ctx.set_output("Output", [x[0], x[1], grid[1], grid[2]], ctx.dtype("X"))


def _grad_grid_sampler(g):
    g.op("grid_sampler_grad", {"X": g.input("X"), "Grid": g.input("Grid"), "Output@GRAD": g.out_grad("Output")},
         {"X@GRAD": g.in_grad("X"), "Grid@GRAD": g.in_grad("Grid")}, g.attrs)


_GS_ATTRS = {"use_cudnn": True, "align_corners": Attr(True, choices=(False, True)),
             "mode": Attr("bilinear", choices=("bilinear",)), "padding_mode": Attr("zeros", choices=("zeros",))}
register("grid_sampler", kernel_module="spatial", inputs=["X", "Grid"], outputs=["Output"], attrs=_GS_ATTRS,
         infer=_infer_grid_sampler, grad=_grad_grid_sampler, grad_reads=("Grid", "X"), lod="drop",
         doc="Output[n, c, h, w] = X[n, c] sampled bilinearly at Grid[n, h, w] = (x, y) in [-1, 1] "
             "(-1: the first pixel, 1: the last, with align_corners as Fluid 1.8; else pixel edges); "
             "neighbours outside X count as 0. Gradients flow to X and Grid.")
register("grid_sampler_grad", kernel_module="spatial", inputs=["X", "Grid", "Output@GRAD"],
         outputs=["X@GRAD?", "Grid@GRAD?"], attrs=_GS_ATTRS, infer=grads_like({"X@GRAD": "X", "Grid@GRAD": "Grid"}))
