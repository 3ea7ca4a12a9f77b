"""Sequence layers over LoD input, with Fluid's signatures (fluid.layers.sequence_*)."""
from ..base.errors import PeError
from .helper import LayerHelper

__all__ = ["sequence_pool", "sequence_first_step", "sequence_last_step", "sequence_softmax", "sequence_reverse",
           "sequence_expand", "sequence_pad", "sequence_unpad", "sequence_mask", "sequence_conv"]

_POOL_TYPES = ("average", "sum", "sqrt", "max", "last", "first")


def sequence_pool(input, pool_type, is_test=False, pad_value=0.0):
    """One row per sequence of the input's last LoD level: its average, sum, sum / sqrt(length),
    max, last or first row (pad_value for an empty sequence); the output has the LoD levels above."""
    helper = LayerHelper("sequence_pool", input=input)
    if str(pool_type).lower() not in _POOL_TYPES:
        raise PeError(f"sequence_pool layer '{helper.name}': pool_type {pool_type!r} is not one of {list(_POOL_TYPES)}")
    out = helper.create_variable_for_type_inference(input.dtype)
    max_index = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    helper.append_op("sequence_pool", {"X": [input]}, {"Out": [out], "MaxIndex": [max_index]},
                     {"pooltype": pool_type.upper(), "is_test": is_test, "pad_value": pad_value})
    return out


def sequence_first_step(input):
    """The first time step of each sequence."""
    return sequence_pool(input, "first")


def sequence_last_step(input):
    """The last time step of each sequence."""
    return sequence_pool(input, "last")


def sequence_softmax(input, use_cudnn=False, name=None):
    """Softmax over the time steps of each sequence ([N, 1] or [N] scores); keeps the LoD."""
    helper = LayerHelper("sequence_softmax", input=input, name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("sequence_softmax", {"X": [input]}, {"Out": [out]})
    return out


def _one(op_type, inputs, out_slot="Out", attrs=None, name=None, dtype=None):
    helper = LayerHelper(op_type, name=name)
    first = next(iter(inputs.values()))
    out = helper.create_variable_for_type_inference(dtype or first.dtype)
    helper.append_op(op_type, {k: [v] for k, v in inputs.items()}, {out_slot: [out]}, attrs or {})
    return out


def sequence_reverse(x, name=None):
    """Each sequence's time steps in reverse order (the LoD is kept)."""
    return _one("sequence_reverse", {"X": x}, "Y", name=name)


def sequence_expand(x, y, ref_level=-1, name=None):
    """x's sequence i (row i when x has no LoD) repeated as often as y's sequence i is long."""
    return _one("sequence_expand", {"X": x, "Y": y}, attrs={"ref_level": ref_level}, name=name)


def sequence_pad(x, pad_value, maxlen=None, name=None):
    """(padded [num_sequences, maxlen, ...], lengths): sequences as a dense batch, pad_value past each end."""
    helper = LayerHelper("sequence_pad", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    length = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("sequence_pad", {"X": [x], "PadValue": [pad_value]}, {"Out": [out], "Length": [length]},
                     {"padded_length": -1 if maxlen is None else maxlen})
    return out, length


def sequence_unpad(x, length, name=None):
    """The first length[i] steps of each padded sequence i, as a LoDTensor."""
    return _one("sequence_unpad", {"X": x, "Length": length}, name=name)


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    """A 0/1 mask [..., maxlen]: 1 where the position is below the length in x."""
    out = _one("sequence_mask", {"X": x}, "Y", {"maxlen": -1 if maxlen is None else maxlen, "out_dtype": dtype},
               name=name, dtype=dtype)
    out.stop_gradient = True
    return out


def sequence_conv(input, num_filters, filter_size=3, filter_stride=1, padding=True, padding_start=None,
                  bias_attr=None, param_attr=None, act=None, name=None):
    """A convolution along each sequence's steps: each step sees filter_size steps from
    padding_start (default -(filter_size // 2), centred), zeros outside its sequence; then bias
    and act. The output [T, num_filters] keeps the input's LoD."""
    helper = LayerHelper("sequence_conv", input=input, param_attr=param_attr, bias_attr=bias_attr, act=act,
                         name=name)
    if filter_stride != 1:
        raise PeError(f"sequence_conv layer '{helper.name}': filter_stride must be 1 (as in Fluid)")
    width = input.shape[-1] if input.shape else -1
    w = helper.create_parameter(param_attr, [filter_size * width, num_filters], input.dtype)
    out = helper.create_variable_for_type_inference(input.dtype)
    start = -(filter_size // 2) if padding_start is None else padding_start
    helper.append_op("sequence_conv", {"X": [input], "Filter": [w]}, {"Out": [out]},
                     {"contextLength": filter_size, "contextStart": start, "contextStride": 1})
    return helper.append_activation(helper.append_bias_op(out))
