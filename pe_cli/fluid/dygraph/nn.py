"""``fluid.dygraph.nn``: Fluid 1.8's layer classes (Conv2D, Pool2D, Linear, Embedding, GRUUnit, ...), with
its constructor parameters, in a static program. As in Fluid, a class makes its parameters in the current
programs when it is made (pe_cli/fluid/dygraph/layers.py) and its call appends the ops to the current
program, after Fluid's checks of the input (a TypeError for a value that is no Variable or of a dtype the
op does not take); inside ``fluid.dygraph.guard()`` those ops run as they are appended (eager.py).
The normalization layers are in pe_cli/fluid/dygraph/normalization.py, the convolutions in convolution.py
(offered here by their names)."""

from ...base.errors import PeError
from ..unsupported import DYGRAPH, refuse
from ...layers.dropout import dropout
from ...layers.loss_sampled import append_nce
from ...layers.pooling import pool2d
from ...layers.checks import FLOATS, check_type, check_variable_and_dtype
from ...framework.variable import Variable
from ...training.initializer import Constant
from .convolution import Conv2D, Conv2DTranspose, Conv3D, Conv3DTranspose  # noqa: F401 (in __all__)
from .layers import FluidLayer
from .losses import BCELoss, NLLLoss  # noqa: F401
from .normalization import BatchNorm, GroupNorm, InstanceNorm, LayerNorm, SpectralNorm  # noqa: F401

__all__ = [
    "Conv2D",
    "Conv3D",
    "Pool2D",
    "Linear",
    "BatchNorm",
    "Dropout",
    "Embedding",
    "GRUUnit",
    "InstanceNorm",
    "LayerNorm",
    "PRelu",
    "BilinearTensorProduct",
    "Conv2DTranspose",
    "Conv3DTranspose",
    "GroupNorm",
    "SpectralNorm",
    "TreeConv",
    "BCELoss",
    "NLLLoss",
    "NCE",
]

_GRU_ACTIVATIONS = {"identity": 0, "sigmoid": 1, "tanh": 2, "relu": 3}


class Pool2D(FluidLayer):
    def __init__(
        self,
        pool_size=-1,
        pool_type="max",
        pool_stride=1,
        pool_padding=0,
        global_pooling=False,
        use_cudnn=True,
        ceil_mode=False,
        exclusive=True,
        data_format="NCHW",
    ):
        if pool_type not in ("max", "avg"):
            raise ValueError(f"Unknown pool_type: '{pool_type}'. It can only be 'max' or 'avg'.")
        if global_pooling is False and pool_size == -1:
            raise ValueError("When the global_pooling is False, pool_size must be passed and be a valid value.")
        if not isinstance(use_cudnn, bool):
            raise ValueError("use_cudnn should be True or False")
        super().__init__()
        self._args = dict(
            pool_size=pool_size,
            pool_type=pool_type,
            pool_stride=pool_stride,
            pool_padding=pool_padding,
            global_pooling=global_pooling,
            use_cudnn=use_cudnn,
            ceil_mode=ceil_mode,
            exclusive=exclusive,
            data_format=data_format,
        )

    def forward(self, input):
        check_variable_and_dtype(input, "input", ("int8", "uint8") + FLOATS, "Pool2D")
        return pool2d(input, **self._args)


class Linear(FluidLayer):
    def __init__(self, input_dim, output_dim, param_attr=None, bias_attr=None, act=None, dtype="float32"):
        super().__init__(dtype=dtype)
        self._act = act
        self.weight = self.create_parameter([input_dim, output_dim], param_attr)
        self.bias = self.create_parameter([output_dim], bias_attr, is_bias=True)

    def forward(self, input):
        check_variable_and_dtype(input, "input", FLOATS, "Linear")
        out = self._tmp()
        self._append(
            "matmul",
            {"X": [input], "Y": [self.weight]},
            {"Out": [out]},
            {"transpose_X": False, "transpose_Y": False, "alpha": 1.0},
        )
        return self._helper.append_activation(self._add_bias(out, self.bias, len(input.shape) - 1), act=self._act)


class Dropout(FluidLayer):
    def __init__(self, p=0.5, seed=None, dropout_implementation="downgrade_in_infer", is_test=False):
        super().__init__()
        self._p, self._seed, self._impl, self._is_test = p, seed, dropout_implementation, is_test

    def forward(self, input):
        return dropout(input, self._p, is_test=self._is_test, seed=self._seed, dropout_implementation=self._impl)


class Embedding(FluidLayer):
    """Looks rows of ``size`` = [vocabulary, width] up by int64 ids (lookup_table_v2: no trailing 1)."""

    def __init__(self, size, is_sparse=False, is_distributed=False, padding_idx=None, param_attr=None, dtype="float32"):
        super().__init__(dtype=dtype)
        self._is_sparse, self._is_distributed = is_sparse, is_distributed
        self._padding_idx = -1 if padding_idx is None else (padding_idx if padding_idx >= 0 else size[0] + padding_idx)
        self.weight = self.create_parameter(list(size), param_attr)

    def forward(self, input):
        check_variable_and_dtype(input, "input", ("int64",), "Embedding")
        out = self._tmp()
        self._append(
            "lookup_table_v2",
            {"Ids": [input], "W": [self.weight]},
            {"Out": [out]},
            {
                "is_sparse": self._is_sparse,
                "is_distributed": self._is_distributed,
                "remote_prefetch": self._is_sparse and not self._is_distributed,
                "padding_idx": self._padding_idx,
            },
        )
        return out


class NCE(FluidLayer):
    """Fluid 1.8's NCE layer: its Weight [num_total_classes, dim] and Bias [num_total_classes, 1] made
    with the layer, each call the nce op (layers.nce's: the cost / (num_neg_samples + 1))."""

    def __init__(
        self,
        num_total_classes,
        dim,
        sample_weight=None,
        param_attr=None,
        bias_attr=None,
        num_neg_samples=None,
        sampler="uniform",
        custom_dist=None,
        seed=0,
        is_sparse=False,
        dtype="float32",
    ):
        super().__init__(dtype=dtype)
        if sampler not in ("uniform", "log_uniform", "custom_dist"):
            raise Exception("Unsupported sampler type.")
        self._num_total_classes, self._sample_weight = num_total_classes, sample_weight
        self._options = {
            "num_neg_samples": num_neg_samples,
            "sampler": sampler,
            "custom_dist": custom_dist,
            "seed": seed,
            "is_sparse": is_sparse,
        }
        self.weight = self.create_parameter([num_total_classes, dim], param_attr)
        self.bias = self.create_parameter([num_total_classes, 1], bias_attr, is_bias=True)

    def forward(self, input, label, sample_weight=None):
        check_variable_and_dtype(input, "input", ("float32", "float64"), "NCE")
        check_variable_and_dtype(label, "label", ("int64",), "NCE")
        check_type(sample_weight, "sample_weight", (Variable, type(None)), "NCE")
        return append_nce(
            self._helper,
            input,
            label,
            self.weight,
            self.bias,
            self._num_total_classes,
            sample_weight if sample_weight is not None else self._sample_weight,
            **self._options,
        )


class GRUUnit(FluidLayer):
    """One GRU step; ``size`` is 3 times the hidden width. Returns (hidden, reset hidden, gate)."""

    def __init__(
        self,
        size,
        param_attr=None,
        bias_attr=None,
        activation="tanh",
        gate_activation="sigmoid",
        origin_mode=False,
        dtype="float32",
    ):
        super().__init__(dtype=dtype)
        for what, act in (("activation", activation), ("gate_activation", gate_activation)):
            if act not in _GRU_ACTIVATIONS:
                raise PeError(f"GRUUnit: {what}={act!r} must be one of {sorted(_GRU_ACTIVATIONS)}")
        self._attrs = {
            "activation": _GRU_ACTIVATIONS[activation],
            "gate_activation": _GRU_ACTIVATIONS[gate_activation],
            "origin_mode": origin_mode,
        }
        width = size // 3
        self.weight = self.create_parameter([width, 3 * width], param_attr)
        self.bias = self.create_parameter([1, 3 * width], bias_attr, is_bias=True)

    def forward(self, input, hidden):
        check_variable_and_dtype(input, "input", ("float32", "float64"), "GRUUnit")
        check_variable_and_dtype(hidden, "hidden", ("float32", "float64"), "GRUUnit")
        inputs = {"Input": [input], "HiddenPrev": [hidden], "Weight": [self.weight]}
        if self.bias is not None:
            inputs["Bias"] = [self.bias]
        gate, reset, updated = self._tmp(), self._tmp(), self._tmp()
        self._append("gru_unit", inputs, {"Gate": [gate], "ResetHiddenPrev": [reset], "Hidden": [updated]}, self._attrs)
        return updated, reset, gate


class PRelu(FluidLayer):
    """``mode`` 'all' (one alpha), 'channel' (one per channel: ``channel`` or ``input_shape[1]``) or
    'element' (one per element of ``input_shape[1:]``)."""

    def __init__(self, mode, channel=None, input_shape=None, param_attr=None, dtype="float32"):
        super().__init__(dtype=dtype)
        self._mode = mode
        if mode == "all":
            shape = [1]
        elif mode == "channel":
            if channel is None and input_shape is None:
                raise ValueError("PRelu: mode 'channel' needs channel (or input_shape)")
            shape = [1, channel if channel is not None else input_shape[1], 1, 1]
        elif mode == "element":
            if input_shape is None:
                raise ValueError("PRelu: mode 'element' needs input_shape")
            shape = [1] + list(input_shape[1:])
        else:
            raise ValueError("mode should be one of all, channel, element.")
        self.weight = self.create_parameter(shape, param_attr, default_initializer=Constant(0.25))

    def forward(self, input):
        check_variable_and_dtype(input, "input", ("float32",), "PRelu")
        out = self._tmp()
        self._append("prelu", {"X": [input], "Alpha": [self.weight]}, {"Out": [out]}, {"mode": self._mode})
        return out


class BilinearTensorProduct(FluidLayer):
    def __init__(
        self, input1_dim, input2_dim, output_dim, name=None, act=None, param_attr=None, bias_attr=None, dtype="float32"
    ):
        super().__init__(name, dtype)
        self._act = act
        self.weight = self.create_parameter([output_dim, input1_dim, input2_dim], param_attr)
        self.bias = self.create_parameter([1, output_dim], bias_attr, is_bias=True)

    def forward(self, x, y):
        check_variable_and_dtype(x, "x", ("float32", "float64"), "BilinearTensorProduct")
        check_variable_and_dtype(y, "y", ("float32", "float64"), "BilinearTensorProduct")
        inputs = {"X": [x], "Y": [y], "Weight": [self.weight]}
        if self.bias is not None:
            inputs["Bias"] = [self.bias]
        out = self._tmp()
        self._append("bilinear_tensor_product", inputs, {"Out": [out]})
        return self._helper.append_activation(out, act=self._act)


class TreeConv(FluidLayer):
    """Tree-based convolution over ``nodes_vector`` [N, nodes, feature_size] and ``edge_set``."""

    def __init__(
        self,
        feature_size,
        output_size,
        num_filters=1,
        max_depth=2,
        act="tanh",
        param_attr=None,
        bias_attr=None,
        name=None,
        dtype="float32",
    ):
        super().__init__(name, dtype)
        self._max_depth, self._act = max_depth, act
        self.weight = self.create_parameter([feature_size, 3, output_size, num_filters], param_attr)
        self.bias = self.create_parameter([num_filters], bias_attr, is_bias=True) if bias_attr else None

    def forward(self, nodes_vector, edge_set):
        check_type(nodes_vector, "nodes_vector", Variable, "TreeConv")
        check_type(edge_set, "edge_set", Variable, "TreeConv")
        out = self._tmp()
        self._append(
            "tree_conv",
            {"NodesVector": [nodes_vector], "EdgeSet": [edge_set], "Filter": [self.weight]},
            {"Out": [out]},
            {"max_depth": self._max_depth},
        )
        return self._helper.append_activation(self._add_bias(out, self.bias, 1), act=self._act)


refuse(globals(), "fluid.dygraph.nn", ["L1Loss", "MSELoss"], DYGRAPH)
