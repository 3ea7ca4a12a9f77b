"""Linear algebra layers with Fluid 1.x signatures: fc (a fully connected layer: mul per input, a
bias and an activation), mul and matmul; spectral_norm and bilinear_tensor_product."""

__all__ = ["matmul", "mul", "fc", "spectral_norm", "bilinear_tensor_product"]
import numpy as np

from ..base.errors import ArgumentValueError, PeError
from ..framework.variable import Variable
from ..training.initializer import NormalInitializer
from ..training.param_attr import ParamAttr
from .helper import LayerHelper, single
from .checks import FLOAT32_64, check_dtype, check_type, check_variable_and_dtype, each, fluid_checks


def matmul(x, y, transpose_x=False, transpose_y=False, alpha=1.0, name=None):
    """alpha * op(x) @ op(y); leading dims are batches and broadcast; a 1-D x is a row vector, a 1-D
    y a column vector (the dim they add is dropped from the result)."""
    check_variable_and_dtype(x, "x", ("float16",) + FLOAT32_64, "matmul")  # Fluid 1.8's TypeErrors
    check_variable_and_dtype(y, "y", ("float16",) + FLOAT32_64, "matmul")
    return single(
        "matmul",
        x,
        {"X": [x], "Y": [y]},
        {"transpose_X": transpose_x, "transpose_Y": transpose_y, "alpha": float(alpha)},
        name=name,
    )


def mul(x, y, x_num_col_dims=1, y_num_col_dims=1, name=None):
    """x @ y with x flattened to a matrix at ``x_num_col_dims`` (its leading dims are rows) and y at
    ``y_num_col_dims``: Fluid's ``mul``, the product inside ``fc``."""
    check_variable_and_dtype(x, "x", ("float16",) + FLOAT32_64, "mul")  # Fluid 1.8's TypeError
    check_variable_and_dtype(y, "y", ("float16",) + FLOAT32_64, "mul")
    return single(
        "mul", x, {"X": [x], "Y": [y]}, {"x_num_col_dims": x_num_col_dims, "y_num_col_dims": y_num_col_dims}, name=name
    )


@fluid_checks("fc", input=each(Variable))
def fc(input, size, num_flatten_dims=1, param_attr=None, bias_attr=None, act=None, name=None, *, is_test=False):
    """Fully connected: Out = act(sum_i flatten(input_i) @ W_i + b). Several inputs each get
    their own weight and are summed before the bias. ``is_test`` (Fluid 1.x before 1.8; it changes
    nothing) is accepted by keyword."""
    helper = LayerHelper("fc", input=input, param_attr=param_attr, bias_attr=bias_attr, act=act, name=name)
    inputs = input if isinstance(input, (list, tuple)) else [input]
    param_attrs = param_attr if isinstance(param_attr, (list, tuple)) else [param_attr] * len(inputs)
    dtype = helper.input_dtype()
    check_dtype(dtype, "input", ("float16",) + FLOAT32_64, "fc")  # Fluid 1.8's TypeError
    products = []
    for var, attr in zip(inputs, param_attrs):
        if num_flatten_dims == -1 and var.shape is not None:  # Fluid's: every dim but the last
            num_flatten_dims = len(var.shape) - 1
        if var.shape is None or len(var.shape) <= num_flatten_dims:
            raise PeError(
                f"fc '{helper.name}': input '{var.name}' has shape {list(var.shape or [])}, "
                f"which num_flatten_dims={num_flatten_dims} cannot split into rows and columns"
            )
        in_features = 1
        for d in var.shape[num_flatten_dims:]:
            in_features *= d
        w = helper.create_parameter(attr, [in_features, size], dtype)
        out = helper.create_variable_for_type_inference(dtype)
        helper.append_op(
            "mul", {"X": [var], "Y": [w]}, {"Out": [out]}, {"x_num_col_dims": num_flatten_dims, "y_num_col_dims": 1}
        )
        products.append(out)
    if len(products) > 1:
        summed = helper.create_variable_for_type_inference(dtype)
        helper.append_op("sum", {"X": products}, {"Out": [summed]})
    else:
        summed = products[0]
    biased = helper.append_bias_op(summed, dim_start=num_flatten_dims)
    return helper.append_activation(biased)


def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    """``weight`` divided by its largest singular value (as a matrix [shape[dim], rest]), estimated by
    ``power_iters`` power iterations from the vectors U [shape[dim]] and V [rest], non-trainable
    parameters drawn from N(0, 1) as Fluid's."""
    check_variable_and_dtype(weight, "weight", FLOAT32_64, "spectral_norm")
    check_type(dim, "dim", int, "spectral_norm")
    check_type(power_iters, "power_iters", int, "spectral_norm")
    check_type(eps, "eps", float, "spectral_norm")
    if dim not in (0, 1):  # (Paddle 2.6's check, its op's too; Fluid 1.8's layer indexed the shape first)
        raise ArgumentValueError(
            f"The input `dim` must be 0 (if weight in fc) or 1 (if weight in conv), but received dim={dim}"
        )
    helper = LayerHelper("spectral_norm", name=name)
    h = weight.shape[dim]
    w = int(np.prod(weight.shape)) // h
    inputs = {"Weight": [weight]}
    for slot, size in (("U", h), ("V", w)):
        vec = helper.create_parameter(
            ParamAttr(), [size], weight.dtype, default_initializer=NormalInitializer(0.0, 1.0)
        )
        vec.stop_gradient = True
        inputs[slot] = [vec]
    out = helper.create_variable_for_type_inference(weight.dtype)
    helper.append_op("spectral_norm", inputs, {"Out": [out]}, {"dim": dim, "power_iters": power_iters, "eps": eps})
    return out


def bilinear_tensor_product(x, y, size, act=None, name=None, param_attr=None, bias_attr=None):
    """Out[b, k] = act(x[b] W[k] y[b]^T + bias[k]): W [size, M, N] for x [B, M] and y [B, N], a bias
    [1, size] unless ``bias_attr`` is False."""
    helper = LayerHelper("bilinear_tensor_product", x=x, act=act, name=name, param_attr=param_attr, bias_attr=bias_attr)
    dtype = x.dtype
    w = helper.create_parameter(param_attr, [size, x.shape[1], y.shape[1]], dtype)
    inputs = {"X": [x], "Y": [y], "Weight": [w]}
    if bias_attr is not False:
        inputs["Bias"] = [helper.create_parameter(bias_attr, [1, size], dtype, is_bias=True)]
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op("bilinear_tensor_product", inputs, {"Out": [out]})
    return helper.append_activation(out, act)
