"""The version of each op type pe implements, as Paddle counts an op's versions (``op_version_map`` of a
ProgramDesc Paddle 2.x saves; paddle/fluid/framework/op_version_registry.h: a version is one checkpoint,
an op never changed is version 0). pe implements Paddle 2.6.2's (read from its
``paddle.base.core.get_op_version_map()``, /work/shared/api/paddle-2.6.2-ops.json's ``version``;
tests/io/test_paddle26_strict_reads.py holds this table to it): every checkpoint up to 2.6.2's of an op
pe has is an attribute, input or output pe declares, or a meaning pe computes both ways. A program whose
map gives an op type it holds a later version than this is refused in one line (fluid_model_read): pe
would run the op with an older meaning than its writer's.

``MEANING_CHANGED``: the op types whose meaning, not only their slots or attributes, changed at a
checkpoint (Paddle's ``kBugfixWithBehaviorChanged``), with that version. pe computes both meanings (the
op's trait ``paddle2_semantics``: Fluid 1.8's, and Paddle 2.x's): a program whose map gives an older
version runs the older one (framework/program_release.mark_paddle2)."""

# op type -> version: Paddle 2.6.2's op_version_map, every op type it versions (the two pe does not register
# too: framework/fluid_model_write writes the whole map into a Paddle 2.x program, as Paddle 2.6.2 does;
# tools/paddle26_desc_kinds.py checks it against Paddle 2.6.2's op manifest); the others are version 0
VERSIONS = {
    "affine_grid": 1,  # align_corners
    "allclose": 2,  # Rtol, Atol inputs; rtol, atol as strings
    "auc": 1,  # ValueTensor input
    "clip": 1,  # Min, Max inputs
    "coalesce_tensor": 2,  # use_align, align_size
    "collect_fpn_proposals": 1,  # MultiLevelRoIsNum, RoisNum
    "conv2d": 1,  # use_addto
    "conv2d_transpose": 2,  # output_padding; force_fp32_output, mkldnn_data_type
    "conv3d": 1,  # use_addto
    "conv3d_transpose": 1,  # output_padding
    "cudnn_lstm": 1,  # WeightList, SequenceLength, ...
    "cumsum": 1,  # flatten
    "data_norm": 1,  # scale_w
    "depthwise_conv2d": 1,  # use_addto
    "depthwise_conv2d_transpose": 1,  # output_padding
    "dequantize": 1,  # Shift
    "distribute_fpn_proposals": 2,  # RoisNum, MultiLevelRoIsNum; pixel_offset
    "elementwise_add": 1,  # Scale_y
    "elementwise_div": 1,
    "elementwise_mul": 1,
    "elementwise_pow": 1,
    "elementwise_sub": 1,
    "equal": 1,  # force_cpu
    "fake_channel_wise_dequantize_max_abs": 2,  # quant_axis; x_num_col_dims
    "fake_channel_wise_quantize_abs_max": 1,  # quant_axis
    "fill_constant": 2,  # ValueTensor; place_type
    "flip": 1,  # axis (was dims)
    "gather": 1,  # Axis input
    "generate_proposal_labels": 2,  # MaxOverlapWithGT; MaxOverlap
    "generate_proposals": 2,  # RpnRoisLod; RpnRoisNum
    "generate_proposals_v2": 1,  # pixel_offset
    "greater_equal": 1,
    "greater_than": 1,
    "grid_sampler": 1,  # mode
    "hard_shrink": 1,  # threshold < 0: MEANING_CHANGED
    "instance_norm": 1,  # Scale, Bias dispensable
    "lamb": 1,  # Beta1PowOut, Beta2PowOut
    "leaky_relu": 1,  # alpha < 0 or > 1: MEANING_CHANGED
    "less_equal": 1,
    "less_than": 1,
    "linspace": 1,  # dtype
    "lookup_table": 1,  # entry_config
    "lookup_table_v2": 1,
    "lstsq": 1,  # Residuals
    "matmul": 1,  # fused_reshape_Y
    "matrix_nms": 1,  # RoisNum
    "mish": 1,  # use_mkldnn, softplus's threshold
    "momentum": 1,  # regularization_method, regularization_coeff, multi_precision, rescale_grad
    "moving_average_abs_max_scale": 2,  # Out
    "not_equal": 1,
    "p_norm": 1,  # asvector
    "pixel_shuffle": 1,  # data_format
    "print": 1,  # print_tensor_layout
    "quantize": 2,  # bfloat16; Shift
    "rank_attention": 1,  # InputHelp, MaxSize
    "requantize": 1,  # Shift_in, Shift_out
    "roi_align": 3,  # RpnRoisLod; RoisNum; aligned
    "roi_pool": 2,  # RpnRoisLod; RoisNum
    "roll": 2,  # axis (was dims); ShiftsTensor
    "seed": 1,  # force_cpu
    "send_and_recv": 1,  # (pe does not register it)
    "set_value": 4,  # ...; values as Scalars
    "softplus": 1,  # beta, threshold
    "trace": 1,  # axis1, axis2 (were dim1, dim2)
    "transfer_layout": 1,  # (pe does not register it)
    "unique_consecutive": 1,  # Indices, Counts; return_inverse, return_counts, axis
    "yolo_box": 1,  # iou_aware, iou_aware_factor
}

# op type -> the version from which its Paddle 2.x meaning holds (Paddle's kBugfixWithBehaviorChanged)
MEANING_CHANGED = {"leaky_relu": 1, "hard_shrink": 1}


def version(op_type):
    """The version of ``op_type`` pe implements (0: Paddle never changed it, or pe's is the first)."""
    return VERSIONS.get(op_type, 0)
