"""Neural-network layers: each appends its ops and parameters through LayerHelper."""
__all__ = ["fc", "mean", "scale"]
from ..errors import PeError
from .helper import LayerHelper


def fc(input, size, num_flatten_dims=1, param_attr=None, bias_attr=None, act=None, is_test=False, name=None):
    """Fully connected: Out = act(sum_i flatten(input_i) @ W_i + b). Several inputs each get
    their own weight and are summed before the bias."""
    helper = LayerHelper("fc", input=input, param_attr=param_attr, bias_attr=bias_attr, act=act, name=name)
    inputs = input if isinstance(input, (list, tuple)) else [input]
    param_attrs = param_attr if isinstance(param_attr, (list, tuple)) else [param_attr] * len(inputs)
    dtype = helper.input_dtype()
    products = []
    for var, attr in zip(inputs, param_attrs):
        if var.shape is None or len(var.shape) <= num_flatten_dims:
            raise PeError(f"fc '{helper.name}': input '{var.name}' has shape {list(var.shape or [])}, "
                          f"which num_flatten_dims={num_flatten_dims} cannot split into rows and columns")
        in_features = 1
        for d in var.shape[num_flatten_dims:]:
            in_features *= d
        w = helper.create_parameter(attr, [in_features, size], dtype)
        out = helper.create_variable_for_type_inference(dtype)
        helper.append_op("mul", {"X": [var], "Y": [w]}, {"Out": [out]},
                         {"x_num_col_dims": num_flatten_dims, "y_num_col_dims": 1})
        products.append(out)
    if len(products) > 1:
        summed = helper.create_variable_for_type_inference(dtype)
        helper.append_op("sum", {"X": products}, {"Out": [summed]})
    else:
        summed = products[0]
    biased = helper.append_bias_op(summed, dim_start=num_flatten_dims)
    return helper.append_activation(biased)


def mean(x, name=None):
    helper = LayerHelper("mean", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("mean", {"X": [x]}, {"Out": [out]})
    return out


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    helper = LayerHelper("scale", x=x, act=act, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("scale", {"X": [x]}, {"Out": [out]},
                     {"scale": float(scale), "bias": float(bias), "bias_after_scale": bias_after_scale})
    return helper.append_activation(out)


__all__ += ["clip_by_norm"]


def clip_by_norm(x, max_norm, name=None):
    """x * max_norm / ||x||_2 where the L2 norm of all of x exceeds ``max_norm``, else x (the
    ``clip_by_norm`` op, which gradient clipping uses too; no gradient flows through it, as in Fluid)."""
    helper = LayerHelper("clip_by_norm", input=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("clip_by_norm", {"X": [x]}, {"Out": [out]}, {"max_norm": float(max_norm)})
    return out
