"""The attributes Paddle 2.6.2 declares on op types pe has that Fluid 1.8.5 did not declare and pe does not
compute with (read from /work/shared/api/paddle-2.6.2-ops.json; tests/ops/test_paddle26_op_attrs.py holds
the registry to it). ``register`` (define.py) adds them to the op's definition, after the family's own,
so the registry knows every attribute of the manifest. Each is declared with Paddle's default and is one
of two kinds:

- ``_backend``: it steers a library, device placement or a number format pe does not have (oneDNN's
  ``mkldnn_data_type`` and int8 scales, where a tensor is placed), so Paddle's plain CPU kernel computes
  the same with any value, and so does pe: every value is accepted;
- ``_unsupported``: a value other than Paddle's default makes Paddle compute something pe does not
  (master weights, parameter-server tables, a channel-wise axis): the registry refuses such a value in
  one line (registry.refuse_unsupported); the default runs.

Neither is filled into an op that was not given it (``fill=False``): pe's programs, and the Fluid models
pe saves, stay as they were. The 2.6 attributes pe computes with are declared by their families (gather's
``axis``, pixel_shuffle's ``data_format``, ...), each with the same ``fill=False``."""

from .attributes import Attr

_BACKEND_WHY = "steers a backend pe does not have; Paddle's plain kernels compute the same with any value"


def _backend(default):
    return Attr(default, fill=False)


def _unsupported(default, why):
    return Attr(default, fill=False, unsupported=why)


_MASTER = "keeps float32 master weights of low-precision parameters (Paddle's multi_precision)"
_PS = "a parameter-server or fleet table setting of Paddle's distributed runtime"
_ONEDNN_INT8 = {
    "mkldnn_data_type": _backend("float32"),
    "Scale_data": _backend(1.0),
    "Shift_data": _backend(0.0),
    "Scale_weights": _backend([1.0]),
    "force_fp32_output": _backend(False),
}


def _optimizer(*extra):
    attrs = {"multi_precision": _unsupported(False, _MASTER)}
    for name, default, why in extra:
        attrs[name] = _unsupported(default, why)
    return attrs


PADDLE2_ATTRS = {
    "adadelta": _optimizer(),
    "adagrad": _optimizer(),
    "adamax": _optimizer(),
    "rmsprop": _optimizer(),
    "sgd": _optimizer(),
    "adam": _optimizer(("use_global_beta_pow", False, "keeps beta1^t and beta2^t outside the op (fused optimizers)")),
    "lamb": _optimizer(),
    "lars_momentum": _optimizer(
        ("epsilon", 0.0, "adds epsilon to the LARS local learning rate's denominator"),
        ("rescale_grad", 1.0, "scales the gradient before the update"),
    ),
    "dgc_momentum": _optimizer(
        ("regularization_method", "", "regularizes inside the DGC update"),
        ("regularization_coeff", 0.0, "regularizes inside the DGC update"),
        ("rescale_grad", 1.0, "scales the gradient before the update"),
    ),
    "fused_adam": _optimizer(
        ("chunk_size", 0, "splits the fused update into chunks"),
        ("weight_decay", 0.0, "decoupled weight decay (AdamW) inside the fused update"),
        ("use_adamw", False, "decoupled weight decay (AdamW) inside the fused update"),
        ("use_global_beta_pow", False, "keeps beta1^t and beta2^t outside the op"),
    ),
    "c_allreduce_max": {"use_model_parallel": _unsupported(False, "reduces over the model-parallel group")},
    "c_allreduce_min": {"use_model_parallel": _unsupported(False, "reduces over the model-parallel group")},
    "c_allreduce_prod": {"use_model_parallel": _unsupported(False, "reduces over the model-parallel group")},
    "c_allreduce_sum": {"use_model_parallel": _unsupported(False, "reduces over the model-parallel group")},
    "broadcast": {"ring_id": _unsupported(0, "broadcasts over another communicator ring")},
    "c_comm_init": {
        "device_id": _unsupported(-1, "binds the communicator to a device"),
        "endpoints": _unsupported("", "names the ring's endpoints itself"),
    },
    "coalesce_tensor": {
        "persist_output": _unsupported(False, "keeps the fused buffer persistable"),
        "use_align": _backend(True),
        "align_size": _unsupported(-1, "aligns each tensor to align_size bytes"),
        "user_defined_size_of_dtype": _unsupported(-1, "lays the tensors out in another element size"),
        "concated_shapes": _unsupported([], "fuses tensors of the shapes given here"),
        "concated_ranks": _unsupported([], "fuses tensors of the ranks given here"),
    },
    "conv3d_transpose": {"output_padding": _unsupported([], "adds output_padding to the output's size")},
    "dequantize": {"Shift": _unsupported(0.0, "subtracts a uint8 shift (oneDNN's asymmetric int8)")},
    "quantize": {
        "Shift": _unsupported(0.0, "adds a uint8 shift (oneDNN's asymmetric int8)"),
        "bfloat16": _unsupported(False, "quantizes to bfloat16"),
    },
    "requantize": {
        "Shift_in": _unsupported(1.0, "asymmetric int8 (oneDNN)"),
        "Shift_out": _unsupported(1.0, "asymmetric int8 (oneDNN)"),
    },
    "distributed_lookup_table": {
        "table_id": _unsupported(0, _PS),
        "is_distributed": _unsupported(False, _PS),
        "is_test": _backend(False),
    },
    "lookup_table": {
        "entry_config": _unsupported("", _PS),
        "is_test": _backend(False),
        "entry": _unsupported("none", _PS),
        "table_class": _unsupported("none", _PS),
        "slot": _unsupported(0, _PS),
    },
    "send": {"table_id": _unsupported(0, _PS), "is_sparse": _unsupported(0, _PS)},
    "pull_box_sparse": {"is_sparse": _unsupported(False, _PS), "is_distributed": _unsupported(False, _PS)},
    "fake_channel_wise_dequantize_max_abs": {
        "quant_axis": _unsupported(0, "dequantizes along another axis than 0"),
        "x_num_col_dims": _unsupported(1, "reads X as a matrix of other columns"),
    },
    "fake_channel_wise_quantize_abs_max": {
        "quant_axis": _unsupported(0, "quantizes along another axis than 0"),
        "is_test": _backend(False),
    },
    "fill_constant": {"place_type": _backend(-1)},
    "lstm": {"is_test": _backend(False)},
    "print": {"print_tensor_layout": _backend(True)},
    "pylayer": {"blocks": _unsupported(None, "runs Paddle 2.6's PyLayer blocks")},
    "rank_attention": {"MaxSize": _unsupported(0, "bounds the rank offsets by MaxSize")},
    "run_program": {
        name: _unsupported(default, "runs Paddle 2.6's dygraph-to-static program (issue 86)")
        for name, default in (
            ("in_pir_pt_mode", False),
            ("program_id", None),
            ("cuda_graph_capture_mode", ""),
            ("cuda_graph_pool_id", 0),
            ("use_interpretorcore", False),
            ("forward_global_block", None),
            ("backward_global_block", None),
            ("param_grad_names", []),
            ("out_grad_names", []),
            ("x_names", []),
            ("x_grad_names", []),
        )
    },
}
for _type in ("fc", "flatten2", "matmul", "reshape2", "split", "sum", "transpose"):
    PADDLE2_ATTRS[_type] = {"mkldnn_data_type": _backend("float32")}
PADDLE2_ATTRS["fusion_gru"] = dict(_ONEDNN_INT8)
PADDLE2_ATTRS["fusion_lstm"] = dict(_ONEDNN_INT8)
