"""Structured kernels (pe_cli/shapes/structured.py, issue 95): an op's meta rule decides its outputs and loop
variant, its out-kernel computes into the buffers it is handed (a ``fresh`` variant, a numpy form, puts
the new array numpy made instead). Checked here: every out-kernel fills the buffers it is given, all of
them (a fresh variant: new arrays of the Meta's shapes and dtypes, sharing no input's memory); an executor
step decides the meta once per shape signature; every structured op is bound by object, and the families converted stay converted."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.activations import TABLE
from pe_cli.base.errors import PeError
from pe_cli.base.places import CPUPlace
from pe_cli.executor.plan import OpStep, Values, run_step
from pe_cli.framework import Program
from pe_cli.kernels.context import KernelContext
from pe_cli.kernels.cpu.mersenne_twister import Mt19937_64
from pe_cli.ops import registry
from tests.ops import (
    cases_activation,
    cases_activation_math,
    cases_creation,
    cases_crf,
    cases_ctc,
    cases_ctc_loss,
    cases_collectives,
    cases_cvm,
    cases_cumulative,
    cases_dependencies,
    cases_diagonals,
    cases_distributed,
    cases_dropout,
    cases_embedding,
    cases_graph_message_passing,
    cases_graph_reindexing,
    cases_primitive_shaping,
    cases_graph_sampling,
    cases_hashing,
    cases_filling,
    cases_elementwise,
    cases_attention,
    cases_fused,
    cases_fused_optimizer,
    cases_linalg_fused,
    cases_normalization_activated,
    cases_position,
    cases_linalg,
    cases_linalg_decomposing,
    cases_linalg_decomposition,
    cases_linalg_solve,
    cases_logic,
    cases_loss_identity,
    cases_loss_margin,
    cases_masked_softmax,
    cases_matrix,
    cases_metric,
    cases_adamw,
    cases_assertions,
    cases_beam_search,
    cases_broadcasting,
    cases_bucketing,
    cases_channel_rearranging,
    cases_complex,
    cases_convolution,
    cases_convolution_geometry,
    cases_convolution_transpose,
    cases_convolution3d,
    cases_convolution_deformable,
    cases_detection_box,
    cases_detection_metric,
    cases_detection_nms,
    cases_detection_proposals,
    cases_detection_loss,
    cases_detection_match,
    cases_detection_roi,
    cases_detection_target,
    cases_detection_yolo,
    cases_loss_classification,
    cases_loss_ranking,
    cases_loss_regression,
    cases_loss_sampled,
    cases_loss_sampled_logits,
    cases_momentum,
    cases_normalization,
    cases_numerics,
    cases_py_func,
    cases_pyramid_hash,
    cases_rank_attention,
    cases_optimizer,
    cases_optimizer_proximal,
    cases_padding,
    cases_paddle2_attrs,
    cases_partial_columns,
    cases_pointwise_math,
    cases_primitive,
    cases_printing,
    cases_control_flow,
    cases_random,
    cases_sampling,
    cases_selecting,
    cases_fft,
    cases_einsum,
    cases_renormalizing,
    cases_ring_collectives,
    cases_segment_pooling,
    cases_slice_assignment,
    cases_unique_runs,
    cases_viterbi,
    cases_sequence,
    cases_sequence_rows,
    cases_lod_rank,
    cases_sequence_fused,
    cases_sequence_image,
    cases_sequence_metric,
    cases_sequence_shape,
    cases_sequence_window,
    cases_text_matching,
    cases_instag,
    cases_similarity,
    cases_special,
    cases_statistics,
    cases_tdm,
    cases_flattening,
    cases_folding,
    cases_framing,
    cases_gather_scatter,
    cases_gru,
    cases_lstm,
    cases_lstm_cudnn,
    cases_lstm_fused,
    cases_lstmp,
    cases_rnn,
    cases_transducer,
    cases_batch_shuffle,
    cases_sparse,
    cases_image,
    cases_image_bicubic,
    cases_image_grid,
    cases_image_resize,
    cases_image_unfold,
    cases_linear_resize,
    cases_index_assignment,
    cases_indexing,
    cases_indexing_axis,
    cases_indexing_tensor_bounds,
    cases_manipulation,
    cases_pooling,
    cases_pooling_mask,
    cases_sequence_conv,
    cases_tree_conv,
    cases_video,
    cases_quantization,
    cases_quantization_linear,
    cases_reduction,
    cases_reduction_norm,
    cases_tensor_attrs,
    cases_tensor_storage,
)

# The op families whose every op type runs through a structured kernel on the CPU, by name -> its op types.
# A family converted is listed here and never leaves: the list only grows (issue 95).
CONVERTED = {
    "activation table": {row.name for row in TABLE} | {f"{row.name}_grad" for row in TABLE if row.derivative},
    "softmax_with_cross_entropy": {"softmax_with_cross_entropy", "softmax_with_cross_entropy_grad"},
    "pooling": {"pool2d", "pool2d_grad", "pool3d", "pool3d_grad"},  # (spp: its kernel, over pool2d's, for now)
    "max pooling with index": {f"max_pool{n}d_with_index{g}" for n in (2, 3) for g in ("", "_grad")},
    "reductions": {"mean", "mean_grad", "reduce_all", "reduce_any", "cumsum"}
    | {f"{r}{g}" for r in ("squared_l2_norm", "logsumexp", "reduce_amax", "reduce_amin") for g in ("", "_grad")}
    | {f"{r}_norm{g}" for r in ("frobenius", "p", "l1") for g in ("", "_grad")}
    | {f"reduce_{r}{g}" for r in ("sum", "mean", "max", "min", "prod") for g in ("", "_grad")},
    "fill_constant": {"fill_constant"},
    "gemm": {"mul", "mul_grad", "fused_gemm_epilogue", "fused_gemm_epilogue_grad"},
    "dense updates": {"sgd", "momentum", "adam"},
    "numpy updates": {
        "adagrad",
        "decayed_adagrad",
        "rmsprop",
        "adamax",
        "adadelta",
        "ftrl",
        "lamb",
        "lars_momentum",
        "adamw",
        "proximal_gd",
        "proximal_adagrad",
    },
    "step counter": {"increment"},
    # (their out-kernels' sentinel buffers: tests/kernels/test_structured_elementwise.py, gradients reading Y)
    "elementwise binary": {f"elementwise_{op}" for op in ("add", "sub", "mul", "div", "max", "min", "pow")}
    | {f"elementwise_{op}_grad" for op in ("add", "sub", "mul", "div", "max", "min", "pow")}
    | {"elementwise_floordiv", "elementwise_mod", "grad_add"},
    "dropout": {"dropout", "dropout_grad"},
    "cast": {"cast"},
    # (layer_norm_grad's sentinel buffers, float16 too: tests/kernels/test_structured_layer_norm.py)
    "layer_norm": {"layer_norm", "layer_norm_grad"},
    "softmax": {"softmax", "softmax_grad", "log_softmax", "log_softmax_grad"},
    "embedding lookup": {"lookup_table", "lookup_table_v2", "lookup_table_grad", "lookup_table_v2_grad"},
    "scale": {"scale"},
    "clip": {"clip", "clip_grad"},
    # (their fresh out-kernels, gradients and meta per signature: tests/kernels/test_structured_cross_entropy.py)
    "cross entropy": {
        f"{op}{g}" for op in ("cross_entropy", "sigmoid_cross_entropy_with_logits") for g in ("", "_grad")
    }
    | {"cross_entropy2", "cross_entropy_grad2"},
    # (their fresh out-kernels, gradients and meta per signature: tests/kernels/test_structured_losses.py)
    "classification losses": {
        f"{op}{g}"
        for op in ("label_smooth", "kldiv_loss", "nll_loss", "teacher_student_sigmoid_loss", "log_loss")
        + ("bce_loss", "hinge_loss", "modified_huber_loss")
        for g in ("", "_grad")
    },
    "regression and ranking losses": {
        f"{op}{g}"
        for op in ("huber_loss", "smooth_l1_loss", "center_loss", "margin_rank_loss", "rank_loss", "bpr_loss")
        for g in ("", "_grad")
    },
    "similarity": {f"{op}{g}" for op in ("cos_sim", "squared_l2_distance", "dist") for g in ("", "_grad")},
    # (their views, out-kernels and metas per signature: tests/kernels/test_structured_reshaping.py)
    "reshaping": {
        f"{op}{two}{g}"
        for op in ("reshape", "squeeze", "unsqueeze", "flatten")
        for two in ("", "2")
        for g in ("", "_grad")
    }
    | {f"{op}{g}" for op in ("flatten_contiguous_range", "transpose", "transpose2") for g in ("", "_grad")},
    # (their out-kernels' sentinel buffers, scratch too: tests/kernels/test_structured_matmul.py)
    "matmul": {"matmul", "matmul_v2", "matmul_grad", "matmul_grad_x", "matmul_grad_y", "bmm", "bmm_grad"},
    # (their sentinel buffers, each gradient alone and both, meta per signature: tests/kernels/test_structured_conv2d.py)
    "conv2d": {f"{t}{g}" for t in ("conv2d", "depthwise_conv2d") for g in ("", "_grad", "_grad_input", "_grad_filter")},
    "conv2d_transpose": {
        f"{t}{g}"
        for t in ("conv2d_transpose", "depthwise_conv2d_transpose")
        for g in ("", "_grad", "_grad_input", "_grad_filter")
    },
    "batch_norm": {"batch_norm", "batch_norm_grad", "batch_norm_grad_param"},
    # (their views, sentinel buffers, fresh sums and metas per signature: tests/kernels/test_structured_slicing.py)
    "slicing": {f"{op}{g}" for op in ("slice", "strided_slice") for g in ("", "_grad")},
    "tiling": {
        f"{op}{g}" for op in ("expand", "tile", "expand_as", "expand_v2", "expand_as_v2") for g in ("", "_grad")
    },
    # (their sentinel buffers, int indices kept, gather's axis moved first: tests/kernels/test_structured_gather.py)
    "gather and scatter by index": {
        f"{op}{g}" for op in ("gather", "gather_nd", "scatter", "scatter_nd_add", "index_select") for g in ("", "_grad")
    }
    | {"one_hot", "one_hot_v2"},
    "top_k and arg": {"top_k", "top_k_grad", "top_k_v2", "top_k_v2_grad", "arg_max", "arg_min"},
    # (their sentinel buffers, bool and ints, in each case's own dtypes: tests/kernels/test_structured_logic.py)
    "comparison and logic": {"less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal"}
    | {f"logical_{op}" for op in ("and", "or", "xor", "not")}
    | {f"bitwise_{op}" for op in ("and", "or", "xor", "not")}
    | {f"{flag}{v2}" for flag in ("isfinite", "isinf", "isnan") for v2 in ("", "_v2")}
    | {"equal_all", "equal_reduce", "allclose", "isclose"},
    # (their list outputs' sentinel buffers, sum's variants and fresh forms: tests/kernels/test_structured_joining.py)
    "joining": {
        "concat",
        "concat_grad",
        "split",
        "split_byref",
        "stack",
        "stack_grad",
        "unstack",
        "unstack_grad",
        "unbind",
        "unbind_leading_grad",
        "sum",
    },
    # (their sentinel buffers, gradients reading every input: tests/kernels/test_structured_pointwise.py)
    "pointwise math": {
        f"{op}{g}"
        for op in ("silu", "celu", "tan", "acosh", "asinh", "atanh", "log2", "log10", "trunc", "conj", "logit")
        + ("atan2", "elementwise_fmax", "elementwise_fmin", "elementwise_heaviside", "lerp")
        for g in ("", "_grad")
    },
    # (their sentinel buffers, gradients too: tests/kernels/test_structured_pointwise.py)
    "special functions": {
        f"{op}{g}"
        for op in ("digamma", "lgamma", "erfinv", "i0", "i0e", "i1", "i1e", "polygamma", "expm1")
        for g in ("", "_grad")
    }
    | {"nextafter"},
    # (their sentinel buffers: tests/kernels/test_structured_pointwise.py)
    "primitive": {f"{op}_p" for op in ("sin", "cos", "tanh", "exp", "log", "erf", "sqrt", "rsqrt", "abs")}
    | {f"{op}_p" for op in ("add", "sub", "mul", "div", "max", "pow", "eq", "ne", "gt", "ge")},
    # (their views, sentinel buffers, scratch, steps and tensors' paddings: tests/kernels/test_structured_padding.py)
    "padding": {
        f"{op}{g}"
        for op in ("pad", "pad2d", "pad3d", "pad_constant_like", "crop", "crop_tensor")
        for g in ("", "_grad")
    },
    # (fresh scans: the arrays their numpy forms make)
    "cumulative": {f"{op}{g}" for op in ("cumprod", "cummax", "cummin", "logcumsumexp") for g in ("", "_grad")},
    "channel rearranging": {f"{op}{g}" for op in ("channel_shuffle", "pixel_unshuffle") for g in ("", "_grad")},
    # (their sentinel buffers, diagonal's Input slot: tests/kernels/test_structured_diagonals.py)
    "diagonals": {f"{op}{g}" for op in ("diag_v2", "diagonal", "fill_diagonal") for g in ("", "_grad")},
    # (their sentinel buffers, meshgrid's lists and a tensor array's zeros: tests/kernels/test_structured_creation.py)
    "creation": {"fake_init", "fill_zeros_like", "fill_zeros_like2", "assign", "assign_value", "fill_any_like"}
    | {"eye", "diag", "diag_embed", "fill", "fill_constant_batch_size_like", "meshgrid", "meshgrid_grad"}
    | {"tril_triu", "tril_triu_grad", "range", "linspace"},
    "filling": {"fill_any", "fill_any_grad", "empty", "full_int_array", "tril_indices", "triu_indices", "logspace"},
    # (addmm's products matmul's; their sentinel buffers and 0-D results: tests/kernels/test_structured_matrix.py)
    "matrix": {
        f"{op}{g}"
        for op in ("addmm", "bilinear_tensor_product", "cross", "dot", "kron", "trace")
        for g in ("", "_grad")
    },
    # (their sentinel buffers, forward outputs the gradients read: tests/kernels/test_structured_norms.py)
    "affine_channel, lrn and norm": {f"{op}{g}" for op in ("affine_channel", "lrn", "norm") for g in ("", "_grad")},
    "instance_norm and group_norm": {f"{op}{g}" for op in ("instance_norm", "group_norm") for g in ("", "_grad")},
    # (numpy's LAPACK, fresh variants; lstsq's Residuals of the values' length: tests/kernels/test_structured_linalg.py)
    "linalg": {
        f"{op}{g}"
        for op in ("mv", "determinant", "slogdeterminant", "solve", "triangular_solve", "cholesky_solve", "multi_dot")
        + ("matrix_power", "cholesky", "spectral_norm", "eigh", "eigvalsh", "qr", "svd")
        for g in ("", "_grad")
    }
    | {"inverse", "eig", "eigvals", "lu", "lu_unpack", "matrix_rank", "lstsq"},
    # (their sentinel buffers, LoD given, a Meta per LoD: tests/kernels/test_structured_sequence.py)
    "sequence": {f"{op}{g}" for op in ("sequence_pool", "sequence_softmax") for g in ("", "_grad")},
    "sequence rows": {
        f"{op}{g}" for op in ("sequence_reverse", "sequence_expand", "sequence_pad") for g in ("", "_grad")
    }
    | {"sequence_unpad_grad"},
    "sequence shape": {f"{op}{g}" for op in ("sequence_expand_as", "sequence_reshape") for g in ("", "_grad")},
    # (LoD given, sentinel buffers, fresh variants whose lengths are values', a Meta per LoD:
    # tests/kernels/test_structured_lod_ops.py)
    "lod ops": {f"{op}{g}" for op in ("sequence_concat", "sequence_slice", "im2sequence") for g in ("", "_grad")}
    | {f"{op}{g}" for op in ("row_conv", "sequence_scatter", "filter_by_instag") for g in ("", "_grad")}
    | {f"{op}{g}" for op in ("match_matrix_tensor", "var_conv_2d", "sequence_topk_avg_pooling") for g in ("", "_grad")}
    | {"lod_reset", "sequence_enumerate", "sequence_erase", "sequence_mask", "sequence_unpad"}
    | {"chunk_eval", "edit_distance"}
    | {
        "fused_embedding_seq_pool",
        "fused_embedding_seq_pool_grad",
        "fusion_seqpool_concat",
        "fusion_seqpool_cvm_concat",
    }
    | {"fusion_seqconv_eltadd_relu", "fusion_seqexpand_concat_fc"}
    | {"max_sequence_len", "shrink_rnn_memory", "shrink_rnn_memory_grad", "rnn_memory_helper", "rnn_memory_helper_grad"}
    | {"reorder_lod_tensor_by_rank", "reorder_lod_tensor_by_rank_grad"},
    # (lod_rank_table, a rank table out, lod_tensor_to_array and array_to_lod_tensor, a tensor array out or in: no
    # tensor, fresh: "rank table arrays", tests/kernels/test_structured_dist.py)
    # (their draws seeded alike for each fill, both engines, sentinel buffers: tests/kernels/test_structured_random.py)
    "random": {
        "uniform_random",
        "uniform_random_p",
        "gaussian_random",
        "truncated_gaussian_random",
        "randint",
        "randperm",
        "seed",
    }
    | {f"{op}_random_batch_size_like" for op in ("uniform", "gaussian")}
    | {"random_crop", "poisson", "poisson_grad", "dirichlet"},
    "sampling": {"bernoulli", "bernoulli_p", "exponential", "multinomial", "uniform_random_inplace", "gaussian_inplace"}
    | {f"{op}{g}" for op in ("rrelu", "dropout_nd", "gumbel_softmax") for g in ("", "_grad")},
    "complex": {f"{op}{g}" for op in ("complex", "real", "imag", "angle") for g in ("", "_grad")}
    | {"as_complex", "as_real"},
    # (sizes given by tensors: fresh variants of unknown dims; sentinel buffers, steps: test_structured_image.py)
    "image": {
        f"{op}{g}"
        for op in ("pixel_shuffle", "space_to_depth", "shuffle_channel", "affine_grid", "grid_sampler", "fsp", "unfold")
        + tuple(f"{m}_interp{v2}" for m in ("nearest", "bilinear", "bicubic", "trilinear") for v2 in ("", "_v2"))
        for g in ("", "_grad")
    }
    | {"similarity_focus"},
    "linear resize": {f"linear_interp{v2}{g}" for v2 in ("", "_v2") for g in ("", "_grad")},
    # (their sentinel buffers, fresh arrays of lengths their values give, steps: tests/kernels/test_structured_indexing.py)
    "where, argsort and unique": {"where", "where_grad", "where_index", "argsort", "argsort_grad"}
    | {"unique", "unique_with_counts"},
    "rearranging": {"flip", "reverse", "roll", "roll_grad"},
    "shape and size": {"shape", "size"},
    "index tensors": {
        f"{op}{g}"
        for op in ("take_along_axis", "put_along_axis", "index_add", "fill_diagonal_tensor", "index_sample")
        + ("multiplex", "index_put")
        for g in ("", "_grad")
    }
    | {"shard_index"},
    "statistics": {f"{op}{g}" for op in ("kthvalue", "mode", "nanmedian") for g in ("", "_grad")} | {"bincount"},
    "bucketing": {"histogram", "searchsorted", "repeat_interleave", "repeat_interleave_grad"},
    "broadcast_tensors": {"broadcast_tensors", "broadcast_tensors_grad"},
    "framing": {f"{op}{g}" for op in ("frame", "overlap_add", "fold") for g in ("", "_grad")},
    # (their sentinel buffers, the call's LoD handed, a Meta per LoD: tests/kernels/test_structured_detection.py)
    "prelu, maxout and second-order activations": {f"{op}{g}" for op in ("prelu", "maxout") for g in ("", "_grad")}
    | {f"{op}_grad_grad" for op in ("relu", "leaky_relu", "elu", "sqrt", "square")},
    "box ops": {"prior_box", "density_prior_box", "anchor_generator", "iou_similarity", "box_coder", "box_clip"}
    | {"polygon_box_transform", "box_decoder_and_assign"},
    "RoI pooling": {
        f"{op}{g}"
        for op in ("roi_pool", "roi_align", "psroi_pool", "prroi_pool", "deformable_psroi_pooling")
        + ("roi_perspective_transform",)
        for g in ("", "_grad")
    },
    "yolo": {"yolo_box", "yolov3_loss", "yolov3_loss_grad"},
    "conv3d": {f"{op}{g}" for op in ("conv3d", "conv3d_transpose") for g in ("", "_grad")},
    "unpool": {f"{op}{g}" for op in ("unpool", "unpool3d") for g in ("", "_grad")},
    # (fresh variants over LoD, a Meta per signature and LoD: tests/kernels/test_structured_recurrent.py)
    # (fresh variants, the sequences a LoD's or Length's: tests/kernels/test_structured_crf_ctc.py)
    "structured prediction": {"linear_chain_crf", "linear_chain_crf_grad", "crf_decoding", "ctc_align"}
    | {"warpctc", "warpctc_grad"},
    # (fresh variants, widths the draws or code tables give -1: tests/kernels/test_structured_crf_ctc.py)
    "sampled losses": {f"{op}{g}" for op in ("hierarchical_sigmoid", "nce", "sample_logits") for g in ("", "_grad")},
    # (fresh variants, lengths the values give -1; beam_log_probs' float32 rows: test_structured_crf_ctc.py)
    "beam search": {"beam_search", "beam_search_decode", "gather_tree", "beam_log_probs", "sampling_id"},
    "recurrent": {f"{op}{g}" for op in ("gru", "gru_unit", "lstm", "lstm_unit", "lstmp") for g in ("", "_grad")}
    | {"fusion_gru", "fusion_lstm", "fused_embedding_fc_lstm", "attention_lstm", "cudnn_lstm", "cudnn_lstm_grad"},
    # (fresh numpy forms, values passed through aliases: tests/kernels/test_structured_quantization.py)
    "quantization": {
        f"fake_{op}"
        for op in ("quantize_abs_max", "quantize_range_abs_max", "quantize_moving_average_abs_max", "quantize_grad")
        + ("dequantize_max_abs", "channel_wise_quantize_abs_max", "channel_wise_dequantize_max_abs")
        + ("quantize_dequantize_moving_average_abs_max",)
    }
    | {"moving_average_abs_max_scale", "dequantize_abs_max", "dequantize_log", "quantize", "dequantize", "requantize"}
    | {"quantize_linear", "dequantize_linear"},
    # (their counts written into sentinel buffers, 0-D in Paddle 2.x: tests/kernels/test_structured_metric.py)
    "metric": {"accuracy", "auc", "mean_iou", "positive_negative_pair", "precision_recall"},
    # (list slots, fresh; pow2's fill in place: tests/kernels/test_structured_loss_scaling.py)
    "loss scaling": {"check_finite_and_unscale", "update_loss_scaling", "merged_adam", "pow2_decay_with_linear_warmup"},
    # (fill, fresh, aliases, seeded noise: tests/kernels/test_structured_schedules.py)
    "schedules and noisy updates": {"lr_schedule", "average_accumulates", "dpsgd", "dgc_momentum"},
    # (each parameter's update, in place where let: tests/kernels/test_structured_fused_updates.py)
    "fused updates": {"fused_sgd", "fused_momentum", "fused_adam"},
    # (aliases, fresh and filled: tests/kernels/test_structured_identity_loss_masked_softmax.py)
    # (elementwise_sub's rule and out-kernel on one shape; its refusal: tests/kernels/test_structured_minus.py)
    "minus": {"minus"},
    # (the outputs its context wants, fresh: tests/kernels/test_structured_div_grad_grad.py)
    "elementwise_div_grad_grad": {"elementwise_div_grad_grad"},
    # (fresh, a SelectedRows too; dgc's alias: tests/kernels/test_structured_clip_by_norm.py)
    "clip_by_norm": {"clip_by_norm", "dgc_clip_by_norm"},
    # (their buffers filled, with and without LoD: tests/kernels/test_structured_cvm.py)
    "cvm": {"cvm", "cvm_grad"},
    # (list buffers filled: tests/kernels/test_structured_partial_columns.py)
    "partial columns": {f"partial_{op}{g}" for op in ("concat", "sum") for g in ("", "_grad")},
    "identity_loss and fused_softmax_mask": {
        f"{op}{g}" for op in ("identity_loss", "fused_softmax_mask") for g in ("", "_grad")
    },
    # (fresh variants of rows the values keep, the LoD set on the call's context: tests/kernels/test_structured_nms.py)
    "NMS": {"multiclass_nms", "multiclass_nms2", "multiclass_nms3", "matrix_nms", "locality_aware_nms", "nms"}
    | {"retinanet_detection_output"},
    "region proposals": {"generate_proposals", "generate_proposals_v2", "distribute_fpn_proposals"}
    | {"collect_fpn_proposals"},
    "detection_map": {"detection_map"},
    # (fresh, trees, LoD, a pool2d Meta per level: tests/kernels/test_structured_convolution_irregular.py)
    "irregular convolutions, spp and temporal_shift": {
        f"{op}{g}"
        for op in ("conv_shift", "deformable_conv", "deformable_conv_v1", "tree_conv", "sequence_conv", "spp")
        + ("temporal_shift",)
        for g in ("", "_grad")
    }
    | {"deformable_conv_grad_deformable", "deformable_conv_v1_grad_deformable"},
    # (fresh lists; buffers and scratch filled; SelectedRows handed over: test_structured_rnn_transducer_rows.py)
    "rnn": {"rnn", "rnn_grad"},
    "warprnnt": {"warprnnt", "warprnnt_grad"},
    "shuffle_batch": {"shuffle_batch", "shuffle_batch_grad"},
    "selected rows": {"merge_selected_rows", "get_tensor_from_selected_rows", "split_selected_rows"},
    # (fresh variants over LoD and draws, lengths the values give -1; the rest filled: test_structured_targets.py)
    "detection targets": {"rpn_target_assign", "retinanet_target_assign", "generate_proposal_labels"}
    | {"generate_mask_labels", "bipartite_match", "target_assign", "mine_hard_examples"},
    "focal and margin losses": {
        f"{op}{g}" for op in ("sigmoid_focal_loss", "margin_cross_entropy") for g in ("", "_grad")
    }
    | {"class_center_sample"},
    "tdm": {"tdm_child", "tdm_sampler"},
    # (fresh numpy forms, filled buffers, pyramid_hash's layout per LoD: tests/kernels/test_structured_assorted_ops.py)
    "norm double grads": {"instance_norm_grad_grad", "batch_norm_grad_grad"},
    "data_norm": {"data_norm", "data_norm_grad"},
    "pyramid_hash": {"pyramid_hash", "pyramid_hash_grad"},
    "rank_attention": {"rank_attention", "rank_attention_grad"},
    "hash": {"hash"},
    "lookup_table_dequant": {"lookup_table_dequant"},
    "merged_momentum": {"merged_momentum"},
    "check_numerics": {"check_numerics"},
    "weighted_sample_neighbors": {"weighted_sample_neighbors", "graph_sample_neighbors", "graph_khop_sampler"},
    # (fresh numpy forms, lengths the values give -1; set_value's Out filled: tests/kernels/test_structured_misc.py)
    "fft": {"fft_c2c", "fft_r2c", "fft_c2r", "stft"},
    "einsum": {"einsum", "einsum_grad"},
    "renorm": {"renorm", "renorm_grad"},
    "masked_select": {"masked_select", "masked_select_grad"},
    "segment_pool": {"segment_pool", "segment_pool_grad"},
    "graph message passing": {f"graph_send_{k}{g}" for k in ("recv", "ue_recv", "uv") for g in ("", "_grad")},
    "graph_reindex": {"graph_reindex"},
    "structural primitives": {f"{k}_p" for k in ("broadcast", "cast", "concat", "fill_constant", "gather", "matmul")}
    | {f"{k}_p" for k in ("reduce_sum", "reshape", "scatter_add", "select", "slice_assign", "slice_select")}
    | {"split_p", "transpose_p"},
    "set_value": {"set_value", "set_value_grad"},
    "unique_consecutive and viterbi_decode": {"unique_consecutive", "viterbi_decode"},
    # (X passed on as it is, a cast's sentinel buffers, coalesce_tensor's views; the ops that touch Python marked
    # ``python``, run between a planned step's segments: tests/kernels/test_structured_host_ops.py)
    "dependency ops": {"depend", "share_data", "memcpy", "memcpy_d2h", "memcpy_h2d", "npu_identity", "nop"}
    | {"share_buffer", "transfer_dtype"},
    "tensor storage": {"coalesce_tensor", "delete_var"},
    "feed and fetch": {"feed", "fetch"},
    "print and assert": {"print", "assert"},
    "tensor files": {"load", "load_combine", "save", "save_combine", "read_file"},
    # (X passed on as it is on a ring of one, Paddle's shapes for nranks of several, refused when the out-kernel runs;
    # marked ``python``: tests/kernels/test_structured_collectives.py)
    "collectives": {f"c_allreduce_{r}" for r in ("sum", "max", "min", "prod")}
    | {f"c_reduce_{r}" for r in ("sum", "max", "min", "prod")}
    | {"c_broadcast", "c_allgather", "c_reducescatter", "c_sync_calc_stream", "c_sync_comm_stream", "allreduce"}
    | {"broadcast", "c_gen_nccl_id", "c_comm_init", "c_comm_init_all", "c_identity", "mp_allreduce_sum", "c_concat"}
    | {"c_split", "c_scatter", "alltoall", "barrier", "all_reduce", "reduce", "all_gather", "all_to_all"}
    | {"reduce_scatter", "c_wait_comm", "c_wait_compute"},
    "c_embedding": {"c_embedding", "c_embedding_grad"},
    # (composed of other ops' out-kernels, list outputs, LoD: tests/kernels/test_structured_fused.py)
    "fused ops": {"fc", "fusion_repeated_fc_relu", "fusion_squared_mat_sub", "add_position_encoding", "fusion_group"}
    | {f"{op}{g}" for op in ("fused_elemwise_activation", "fused_elemwise_add_activation") for g in ("", "_grad")}
    | {
        f"{op}{g}"
        for op in ("fused_batch_norm_act", "inplace_abn", "scaled_dot_product_attention")
        for g in ("", "_grad")
    },
    # (the values themselves put, fresh; the ops that hold tensor arrays or run a block marked ``python``:
    # tests/kernels/test_structured_control_flow.py)
    "tensor arrays": {"create_array", "write_to_array", "read_from_array", "array_write_grad", "array_read_grad"}
    | {"lod_array_length", "tensor_array_to_tensor", "tensor_array_to_tensor_grad"},
    "branches and masks": {"split_lod_tensor", "merge_lod_tensor", "merge_lod_tensor_infer", "is_empty", "get_places"}
    | {f"select_{io}{g}" for io in ("input", "output") for g in ("", "_grad")},
    "block ops": {"while", "while_grad", "conditional_block", "conditional_block_infer", "conditional_block_grad"}
    | {"pylayer", "pylayer_grad", "recurrent", "recurrent_grad"},
    # (the trainer's id and table ops into buffers handed; the ops that talk to servers, read from Python readers or
    # call Python marked ``python``: tests/kernels/test_structured_dist.py)
    "ids and sparse tables": {"split_ids", "merge_ids", "ref_by_trainer_id", "lookup_sparse_table"},
    "parameter server": {"send", "send_barrier", "recv", "fetch_barrier", "listen_and_serv", "prefetch"}
    | {"distributed_lookup_table", "checkpoint_notify", "recv_save", "fl_listen_and_serv"},
    "parameter services": {"pull_box_sparse", "push_box_sparse", "pull_sparse", "push_sparse", "pull_sparse_v2"}
    | {"push_sparse_v2", "push_dense"},
    "readers": {"create_py_reader", "create_double_buffer_reader", "read"},
    "py_func": {"py_func"},
    "rank table arrays": {"lod_rank_table", "lod_tensor_to_array", "array_to_lod_tensor"},
    "program blocks": {"run_program", "run_program_grad", "dynamic_recurrent", "dynamic_recurrent_grad"},
}
CASES = {
    "activation table": [
        c for c in cases_activation.CASES + cases_activation_math.CASES if c.op in CONVERTED["activation table"]
    ],
    "softmax_with_cross_entropy": [
        c for c in cases_loss_classification.CASES if c.op in CONVERTED["softmax_with_cross_entropy"]
    ],
    # (an out-kernel sees NCHW: an NHWC op's values are transposed around its kernel, kernels/layout.py)
    "pooling": [
        c
        for c in cases_pooling.CASES
        if c.op in CONVERTED["pooling"] and c.attrs.get("data_format") not in ("NHWC", "NDHWC")
    ],
    "max pooling with index": [c for c in cases_pooling_mask.CASES if c.op in CONVERTED["max pooling with index"]],
    # (cumsum's AxisTensor: the op's kernel puts its value in the axis attribute first, kernels/tensor_attrs.py)
    "reductions": [
        c
        for c in cases_reduction.CASES + cases_reduction_norm.CASES
        if c.op in CONVERTED["reductions"] and not (c.op == "cumsum" and "AxisTensor" in c.inputs)
    ],
    # (the cases of no tensor inputs, ShapeTensor's values replacing the shape attribute before the rule runs, and
    # of a dtype named, as the registry names a VarType code when the op is appended)
    "fill_constant": [
        c
        for c in cases_creation.CASES
        if c.op == "fill_constant" and not c.inputs and isinstance(c.attrs.get("dtype", ""), str)
    ],
    "gemm": [c for c in cases_linalg.CASES + cases_fused.CASES if c.op in CONVERTED["gemm"]],
    # (row-sparse values: the updates' own test below; attributes given as tensors, Beta1Tensor: the op's kernel
    # puts their values in its attributes before its out-kernel runs, kernels/tensor_attrs.py)
    "dense updates": [
        c
        for c in cases_optimizer.CASES + cases_momentum.CASES
        if c.op in CONVERTED["dense updates"]
        and all(isinstance(v, np.ndarray) for v in c.inputs.values())
        and not set(c.inputs) & set(registry.get(c.op).attr_tensors)
    ],
    "layer_norm": [c for c in cases_normalization.CASES if c.op == "layer_norm"],
    "step counter": [c for c in cases_optimizer.CASES if c.op == "increment"],
    "numpy updates": [
        c
        for c in cases_optimizer.CASES + cases_adamw.CASES + cases_optimizer_proximal.CASES
        if c.op in CONVERTED["numpy updates"] and not set(c.inputs) & set(registry.get(c.op).attr_tensors)
    ],
    "dropout": cases_dropout.CASES,
    # (a dtype named, as fill_constant's: the registry names a VarType code when the op is appended)
    "cast": [c for c in cases_manipulation.CASES if c.op == "cast" and isinstance(c.attrs["out_dtype"], str)],
    "softmax": [c for c in cases_activation.CASES if c.op in CONVERTED["softmax"]],
    "embedding lookup": [c for c in cases_embedding.CASES if c.op in CONVERTED["embedding lookup"]],
    "scale": [c for c in cases_elementwise.CASES if c.op == "scale"],
    # (bounds given as tensors Min and Max: the op's kernel puts their values in its attributes, tensor_attrs.py)
    "clip": [c for c in cases_elementwise.CASES if c.op == "clip" and not {"Min", "Max"} & set(c.inputs)],
    "cross entropy": [c for c in cases_loss_classification.CASES if c.op in CONVERTED["cross entropy"]],
    "classification losses": [c for c in cases_loss_classification.CASES if c.op in CONVERTED["classification losses"]],
    "regression and ranking losses": [
        c
        for c in cases_loss_regression.CASES + cases_loss_ranking.CASES
        if c.op in CONVERTED["regression and ranking losses"]
    ],
    "similarity": [c for c in cases_similarity.CASES if c.op in CONVERTED["similarity"]],
    "reshaping": [
        c
        for c in cases_manipulation.CASES + cases_tensor_attrs.CASES + cases_flattening.CASES
        if c.op in CONVERTED["reshaping"]
    ],
    "matmul": [c for c in cases_linalg.CASES + cases_matrix.CASES if c.op in CONVERTED["matmul"]],
    "conv2d": [
        c
        for c in cases_convolution.CASES + cases_convolution_geometry.CASES
        if c.op in CONVERTED["conv2d"] and c.attrs.get("data_format") != "NHWC"
    ],
    "conv2d_transpose": [
        c
        for c in cases_convolution_transpose.CASES + cases_convolution_geometry.CASES
        if c.op in CONVERTED["conv2d_transpose"] and c.attrs.get("data_format") != "NHWC"
    ],
    # (its out-kernels' sentinel buffers, MeanOut/VarianceOut aliases: tests/kernels/test_structured_batch_norm.py;
    # MomentumTensor's value replaces the momentum attribute before the rule runs, kernels/tensor_attrs.py)
    "batch_norm": [
        c for c in cases_normalization.CASES if c.op in CONVERTED["batch_norm"] and "MomentumTensor" not in c.inputs
    ],
    # (an Axis or depth_tensor given: the op's kernel puts its value in the attribute before the rule runs)
    "gather and scatter by index": [
        c
        for c in cases_indexing.CASES + cases_gather_scatter.CASES + cases_paddle2_attrs.CASES
        if c.op in CONVERTED["gather and scatter by index"] and not {"Axis", "depth_tensor"} & set(c.inputs)
    ],
    # (K given: the op's kernel puts its value in k before the rule runs)
    "top_k and arg": [
        c
        for c in cases_indexing.CASES + cases_selecting.CASES
        if c.op in CONVERTED["top_k and arg"] and "K" not in c.inputs
    ],
    "comparison and logic": [
        c for c in cases_logic.CASES + cases_elementwise.CASES if c.op in CONVERTED["comparison and logic"]
    ],
    # (dense values; AxisTensor's and SectionsTensorList's values replace their attributes before the rule runs)
    "joining": [
        c
        for c in cases_manipulation.CASES + cases_elementwise.CASES + cases_tensor_attrs.CASES
        if c.op in CONVERTED["joining"] and not {"AxisTensor", "SectionsTensorList"} & set(c.inputs)
    ],
    "pointwise math": cases_pointwise_math.CASES,
    "special functions": cases_special.CASES,
    "primitive": cases_primitive.CASES,
}
# (bounds, times and shapes given by tensors too: their values replace the attributes before the rule runs)
CASES["slicing"] = [
    c for c in cases_indexing.CASES + cases_indexing_tensor_bounds.CASES if c.op in CONVERTED["slicing"]
]
CASES["tiling"] = [c for c in cases_manipulation.CASES + cases_broadcasting.CASES if c.op in CONVERTED["tiling"]]
CASES["cumulative"] = [c for c in cases_cumulative.CASES if c.op in CONVERTED["cumulative"]]
CASES["channel rearranging"] = [c for c in cases_channel_rearranging.CASES if c.op in CONVERTED["channel rearranging"]]
CASES["diagonals"] = [c for c in cases_diagonals.CASES if c.op in CONVERTED["diagonals"]]
CASES["creation"] = [c for c in cases_creation.CASES if c.op in CONVERTED["creation"]]
CASES["filling"] = [c for c in cases_filling.CASES if c.op in CONVERTED["filling"]]
CASES["matrix"] = [c for c in cases_matrix.CASES if c.op in CONVERTED["matrix"]]
CASES["affine_channel, lrn and norm"] = [
    c for c in cases_normalization.CASES if c.op in CONVERTED["affine_channel, lrn and norm"]
]
# (an out-kernel sees NCHW: group_norm's NHWC values are transposed around it, kernels/layout.py)
CASES["instance_norm and group_norm"] = [
    c
    for c in cases_normalization.CASES
    if c.op in CONVERTED["instance_norm and group_norm"] and c.attrs.get("data_layout") != "NHWC"
]
CASES["linalg"] = [
    c
    for c in cases_linalg.CASES
    + cases_linalg_solve.CASES
    + cases_linalg_decomposing.CASES
    + cases_linalg_decomposition.CASES
    if c.op in CONVERTED["linalg"]
]
CASES["sequence"] = [c for c in cases_sequence.CASES if c.op in CONVERTED["sequence"]]
CASES["sequence rows"] = [c for c in cases_sequence_rows.CASES if c.op in CONVERTED["sequence rows"]]
CASES["sequence shape"] = [c for c in cases_sequence_shape.CASES if c.op in CONVERTED["sequence shape"]]
CASES["lod ops"] = [
    c
    for module in (cases_sequence_shape, cases_sequence_window, cases_sequence_rows, cases_sequence_image)
    + (cases_sequence_metric, cases_text_matching, cases_instag, cases_sequence_fused, cases_lod_rank)
    for c in module.CASES
    if c.op in CONVERTED["lod ops"]
]
CASES["random"] = cases_random.CASES
CASES["sampling"] = cases_sampling.CASES
CASES["complex"] = cases_complex.CASES
_INDEXING_FILES = (cases_indexing, cases_indexing_axis, cases_manipulation, cases_gather_scatter, cases_statistics)
_INDEXING_FILES += (cases_bucketing, cases_broadcasting, cases_index_assignment, cases_folding, cases_framing)
INDEXING_FAMILIES = (
    "where, argsort and unique",
    "rearranging",
    "shape and size",
    "index tensors",
    "statistics",
    "bucketing",
    "broadcast_tensors",
    "framing",
)
for _family in INDEXING_FAMILIES:
    CASES[_family] = [c for f in _INDEXING_FILES for c in f.CASES if c.op in CONVERTED[_family]]
CASES["padding"] = [c for c in cases_padding.CASES + cases_tensor_attrs.CASES if c.op in CONVERTED["padding"]]
CASES["image"] = [
    c
    for m in (cases_image, cases_image_bicubic, cases_image_grid, cases_image_resize, cases_image_unfold)
    for c in m.CASES
    if c.op in CONVERTED["image"]
]
CASES["linear resize"] = [c for c in cases_linear_resize.CASES if c.op in CONVERTED["linear resize"]]
CASES["prelu, maxout and second-order activations"] = [
    c for c in cases_activation.CASES if c.op in CONVERTED["prelu, maxout and second-order activations"]
]
CASES["box ops"] = [c for c in cases_detection_box.CASES if c.op in CONVERTED["box ops"]]
CASES["RoI pooling"] = [c for c in cases_detection_roi.CASES if c.op in CONVERTED["RoI pooling"]]
CASES["yolo"] = [c for c in cases_detection_yolo.CASES if c.op in CONVERTED["yolo"]]
CASES["NMS"] = cases_detection_nms.CASES
CASES["region proposals"] = cases_detection_proposals.CASES
CASES["detection_map"] = cases_detection_metric.CASES
# (an out-kernel sees NCDHW: an NDHWC op's values are transposed around it, kernels/layout.py)
CASES["conv3d"] = [
    c
    for c in cases_convolution3d.CASES + cases_convolution_geometry.CASES
    if c.op in CONVERTED["conv3d"] and c.attrs.get("data_format") not in ("NDHWC", "NHWC")
]
CASES["unpool"] = [c for c in cases_pooling_mask.CASES if c.op in CONVERTED["unpool"]]
CASES["structured prediction"] = [
    c for c in cases_crf.CASES + cases_ctc.CASES + cases_ctc_loss.CASES if c.op in CONVERTED["structured prediction"]
]
CASES["sampled losses"] = [
    c for c in cases_loss_sampled.CASES + cases_loss_sampled_logits.CASES if c.op in CONVERTED["sampled losses"]
]
CASES["beam search"] = [c for c in cases_beam_search.CASES if c.op in CONVERTED["beam search"]]
CASES["recurrent"] = [
    c
    for c in cases_gru.CASES + cases_lstm.CASES + cases_lstmp.CASES + cases_lstm_fused.CASES + cases_lstm_cudnn.CASES
    if c.op in CONVERTED["recurrent"]
]
CASES["quantization"] = cases_quantization.CASES + cases_quantization_linear.CASES
CASES["metric"] = [c for c in cases_metric.CASES if c.op in CONVERTED["metric"]]
CASES["loss scaling"] = [c for c in cases_adamw.CASES if c.op in CONVERTED["loss scaling"]]
CASES["identity_loss and fused_softmax_mask"] = cases_loss_identity.CASES + cases_masked_softmax.CASES
CASES["partial columns"] = cases_partial_columns.CASES
CASES["cvm"] = cases_cvm.CASES
# (an out-kernel sees NCHW: an NHWC temporal_shift's values are transposed around it, kernels/layout.py)
CASES["irregular convolutions, spp and temporal_shift"] = [
    c
    for m in (cases_convolution, cases_convolution_deformable, cases_tree_conv, cases_sequence_conv, cases_pooling)
    + (cases_video, cases_paddle2_attrs)
    for c in m.CASES
    if c.op in CONVERTED["irregular convolutions, spp and temporal_shift"] and c.attrs.get("data_format") != "NHWC"
]
CASES["norm double grads"] = []  # (no op cases: tests/kernels/test_structured_assorted_ops.py's inputs)
CASES["data_norm"] = [c for c in cases_normalization.CASES if c.op == "data_norm"]
CASES["pyramid_hash"] = cases_pyramid_hash.CASES
CASES["rank_attention"] = cases_rank_attention.CASES
CASES["hash"] = cases_hashing.CASES
CASES["lookup_table_dequant"] = [c for c in cases_embedding.CASES if c.op == "lookup_table_dequant"]
CASES["merged_momentum"] = [c for c in cases_momentum.CASES if c.op == "merged_momentum"]
CASES["check_numerics"] = cases_numerics.CASES
CASES["weighted_sample_neighbors"] = cases_graph_sampling.CASES
CASES["dependency ops"] = cases_dependencies.CASES
CASES["tensor storage"] = cases_tensor_storage.CASES
CASES["print and assert"] = cases_printing.CASES + cases_assertions.CASES
CASES["collectives"] = cases_collectives.CASES + [c for c in cases_ring_collectives.CASES if c.op != "c_embedding"]
CASES["c_embedding"] = [c for c in cases_ring_collectives.CASES if c.op == "c_embedding"]
CASES["branches and masks"] = cases_control_flow.CASES
CASES["ids and sparse tables"] = cases_distributed.CASES
CASES["py_func"] = cases_py_func.CASES
CASES["rank table arrays"] = [c for c in cases_lod_rank.CASES if c.op in CONVERTED["rank table arrays"]]
CASES["parameter server"] = CASES["parameter services"] = CASES["readers"] = CASES[
    "program blocks"
] = []  # (their services)
CASES["clip_by_norm"] = [c for c in cases_elementwise.CASES if c.op in CONVERTED["clip_by_norm"]]
CASES["minus"] = [c for c in cases_elementwise.CASES if c.op == "minus"]
CASES["rnn"] = cases_rnn.CASES
CASES["warprnnt"] = cases_transducer.CASES
CASES["shuffle_batch"] = cases_batch_shuffle.CASES
CASES["selected rows"] = [c for c in cases_sparse.CASES if c.op in CONVERTED["selected rows"]]
CASES["fused updates"] = [c for c in cases_fused_optimizer.CASES if c.op in CONVERTED["fused updates"]]
_MISC_FILES = (cases_fft, cases_einsum, cases_renormalizing, cases_selecting, cases_segment_pooling)
_MISC_FILES += (cases_slice_assignment, cases_unique_runs, cases_viterbi)
_MISC_FILES += (cases_graph_message_passing, cases_graph_reindexing, cases_primitive_shaping)
_MISC = ("fft", "einsum", "renorm", "masked_select", "segment_pool", "set_value", "graph message passing")
for _family in _MISC + ("graph_reindex", "structural primitives"):
    CASES[_family] = [c for f in _MISC_FILES for c in f.CASES if c.op in CONVERTED[_family]]
CASES["unique_consecutive and viterbi_decode"] = cases_unique_runs.CASES + cases_viterbi.CASES
CASES["fused ops"] = [
    c
    for c in cases_fused.CASES
    + cases_linalg_fused.CASES
    + cases_attention.CASES
    + cases_normalization_activated.CASES
    + cases_position.CASES
    if c.op in CONVERTED["fused ops"]
]
CASES["schedules and noisy updates"] = [
    c for c in cases_optimizer.CASES if c.op in CONVERTED["schedules and noisy updates"]
]
CASES["detection targets"] = cases_detection_target.CASES + cases_detection_match.CASES
CASES["focal and margin losses"] = cases_detection_loss.CASES + cases_loss_margin.CASES
CASES["tdm"] = cases_tdm.CASES
# (softmax_with_cross_entropy's cases have a test of their own, which moves their axis last as its layout does;
# the GEMM ops' too, whose gradients read more than X and Out; dropout's, its draws seeded alike for each fill;
# the lookups', whose Ids stay ints)
OWN_TESTS = (
    "branches and masks",
    "softmax_with_cross_entropy",
    "gemm",
    "dropout",
    "embedding lookup",
    "cross entropy",
    "classification losses",
    "regression and ranking losses",
    "similarity",
    "reshaping",
    "matmul",
    "conv2d",
    "conv2d_transpose",
    "batch_norm",
    "slicing",
    "tiling",
    "gather and scatter by index",
    "comparison and logic",
    "joining",
    "pointwise math",
    "special functions",
    "primitive",
    "padding",
    "diagonals",
    "creation",
    "filling",
    "matrix",
    "affine_channel, lrn and norm",
    "instance_norm and group_norm",
    "sequence",
    "sequence rows",
    "sequence shape",
    "lod ops",
    "random",
    "sampling",
    "complex",
    "linalg",
    "image",
    "linear resize",
    "where, argsort and unique",
    "rearranging",
    "shape and size",
    "index tensors",
    "statistics",
    "bucketing",
    "broadcast_tensors",
    "framing",
    "prelu, maxout and second-order activations",
    "box ops",
    "RoI pooling",
    "yolo",
    "conv3d",
    "unpool",
    "recurrent",
    "structured prediction",
    "sampled losses",
    "beam search",
    "quantization",
    "metric",
    "loss scaling",
    "schedules and noisy updates",
    "fused updates",
    "identity_loss and fused_softmax_mask",
    "partial columns",
    "cvm",
    "clip_by_norm",
    "NMS",
    "region proposals",
    "detection_map",
    "irregular convolutions, spp and temporal_shift",
    "rnn",
    "warprnnt",
    "shuffle_batch",
    "selected rows",
    "detection targets",
    "focal and margin losses",
    "tdm",
    "norm double grads",
    "data_norm",
    "pyramid_hash",
    "rank_attention",
    "hash",
    "lookup_table_dequant",
    "merged_momentum",
    "check_numerics",
    "weighted_sample_neighbors",
    "fft",
    "einsum",
    "renorm",
    "masked_select",
    "segment_pool",
    "graph message passing",
    "graph_reindex",
    "structural primitives",
    "set_value",
    "unique_consecutive and viterbi_decode",
    "dependency ops",
    "tensor storage",
    "print and assert",
    "collectives",
    "c_embedding",
    "fused ops",
    "ids and sparse tables",
    "parameter server",
    "parameter services",
    "readers",
    "py_func",
    "rank table arrays",
    "block ops",
    "program blocks",
)
ALL_CASES = [case for family in sorted(CASES) if family not in OWN_TESTS for case in CASES[family]]
rng = np.random.default_rng(3)


def _sentinel_buffers(meta, fill):
    """slot -> an array of the Meta's shape and dtype holding nothing but ``fill`` (NaN, or 77 in ints)."""
    outs = {}
    for slot, (shape, dtype) in meta.outputs.items():
        dtype = np.dtype(dtype)
        value = fill if dtype.kind in "fc" else 77 if np.isnan(fill) else -5
        outs[slot] = np.full(shape, value, dtype)
    return outs


def _filled_completely(op, ins, attrs, ctx):
    """Runs the op's out-kernel into buffers of two sentinel patterns; returns the outputs of the first."""
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, ctx)
    answers = []
    for fill in (np.nan, -7.25):
        outs = _sentinel_buffers(meta, fill)
        given = dict(outs)
        assert structured.cpu(ins, outs, dict(attrs), meta) is None, f"{op}: the out-kernel returned something"
        for slot, buffer in given.items():
            if meta.fresh:  # a numpy form's own new array, never an input's memory
                assert outs[slot] is not buffer and not any(np.shares_memory(outs[slot], v) for v in ins.values())
            else:
                assert outs[slot] is buffer, f"{op}: {slot} is not the buffer it was handed"
            got = outs[slot]
            assert got.shape == tuple(meta.outputs[slot][0]) and got.dtype == meta.outputs[slot][1]
            assert got.flags.c_contiguous
        answers.append(outs)
    for slot in answers[0]:  # an element left unwritten keeps its sentinel, which differs between the runs
        a, b = answers[0][slot], answers[1][slot]
        assert a.tobytes() == b.tobytes(), f"{op} ({meta.variant}): {slot} not filled completely"
    return answers[0]


def _grad_inputs(case, ins, attrs, outs, dtype):
    """The grad op's inputs: X, the forward's outputs (Out, a max pool's Mask), a random Out@GRAD."""
    grad = registry.get(case.op + "_grad")
    dout = rng.uniform(-1, 1, size=np.shape(outs["Out"])).astype(dtype)
    given = {"X": ins["X"], **outs, "Out@GRAD": dout}
    return {s.name: given[s.name] for s in grad.inputs if s.name in given}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (a case's values outside an op's domain)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", ALL_CASES, ids=[c.id for c in ALL_CASES])
def test_out_kernels_fill_the_buffers_they_are_handed(case, dtype):
    """Every op case of a converted family, forward and gradient, in float64 (the cases') and float32 (the loops'):
    the out-kernel returns nothing, its outputs are the buffers it was handed, of the Meta's shapes and
    dtypes, every element written, and they are what the op's kernel computes."""
    attrs, ctx = _attrs_with_defaults(case), KernelContext(paddle2=case.paddle2)
    ins = {slot: np.asarray(value).astype(dtype) for slot, value in case.inputs.items()}
    outs = _filled_completely(case.op, ins, attrs, ctx)
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx)
    assert all(outs[slot].tobytes() == want[slot].tobytes() for slot in want)
    grad = registry.get(case.op + "_grad") if case.op + "_grad" in registry.all_op_types() else None
    if case.grad and "Out" in outs and grad is not None and grad.structured is not None:
        gins = _grad_inputs(case, ins, attrs, outs, dtype)
        douts = _filled_completely(case.op + "_grad", gins, attrs, ctx)
        want = grad.kernel("cpu")(gins, dict(attrs), ctx)
        assert douts["X@GRAD"].tobytes() == want["X@GRAD"].tobytes()


def _axis_last(ins, attrs, slots):
    """The values of ``slots`` with ``attrs['axis']`` moved last, and the attributes saying -1: what the op's
    last_axis layout (kernels/layout.py) hands its out-kernel."""
    rank = ins["Softmax" if "Softmax" in ins else "Logits"].ndim
    axis = attrs["axis"] % rank
    moved = {k: np.ascontiguousarray(np.moveaxis(v, axis, -1)) if k in slots else v for k, v in ins.items()}
    return moved, dict(attrs, axis=-1)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(
    "case", CASES["softmax_with_cross_entropy"], ids=[c.id for c in CASES["softmax_with_cross_entropy"]]
)
def test_softmax_with_cross_entropy_out_kernels_fill_the_buffers_they_are_handed(case, dtype):
    """Every op case of softmax_with_cross_entropy (hard, soft, ignore_index, 3-D, another axis), forward and
    gradient, in float64 and float32: the out-kernels fill every element of the sentinel buffers they are
    handed (along the last axis, where the op's layout puts it) with what the op's kernel computes."""
    attrs, ctx = _attrs_with_defaults(case), KernelContext()
    ins = {s: np.asarray(v).astype(dtype) if np.asarray(v).dtype.kind == "f" else v for s, v in case.inputs.items()}
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx)
    moved, moved_attrs = _axis_last(ins, attrs, ("Logits", "Label"))
    outs = _filled_completely(case.op, moved, moved_attrs, ctx)
    assert all(outs[s].tobytes() == _axis_last(want, attrs, want)[0][s].tobytes() for s in want)
    dloss = rng.uniform(-1, 1, size=want["Loss"].shape).astype(dtype)
    gins = {"Label": ins["Label"], "Softmax": want["Softmax"], "Loss@GRAD": dloss}
    gwant = registry.get(case.op + "_grad").kernel("cpu")(gins, dict(attrs), ctx)["Logits@GRAD"]
    gmoved, _ = _axis_last(gins, attrs, gins)
    douts = _filled_completely(case.op + "_grad", gmoved, moved_attrs, ctx)
    assert douts["Logits@GRAD"].tobytes() == _axis_last({"Softmax": gwant}, attrs, ("Softmax",))[0]["Softmax"].tobytes()


_GEMM_GRADS = {  # the grad op of a GEMM op, its inputs from the forward's and the outputs it may write
    "mul": ("mul_grad", lambda ins, dout: dict(ins, **{"Out@GRAD": dout}), ("X@GRAD", "Y@GRAD")),
    "fused_gemm_epilogue": (
        "fused_gemm_epilogue_grad",
        lambda ins, dout: {"DOut": dout, "X": ins["X"], "Y": ins["Y"]},
        ("DX", "DY", "DBias"),
    ),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES["gemm"], ids=[c.id for c in CASES["gemm"]])
def test_gemm_out_kernels_fill_the_buffers_they_are_handed(case, dtype):
    """Every op case of mul and fused_gemm_epilogue, and their gradient ops (each output alone, and all), in
    float64 and float32: the out-kernels fill every element of the sentinel buffers they are handed with what
    the op's kernel computes."""
    attrs, ctx = _attrs_with_defaults(case), KernelContext()
    ins = {slot: np.asarray(value).astype(dtype) for slot, value in case.inputs.items()}
    outs = _filled_completely(case.op, ins, attrs, ctx)
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx)
    assert all(outs[slot].tobytes() == want[slot].tobytes() for slot in want)
    if case.op not in _GEMM_GRADS:
        return
    grad_op, grad_ins, written = _GEMM_GRADS[case.op]
    gins = grad_ins(ins, rng.uniform(-1, 1, size=want["Out"].shape).astype(dtype))
    gattrs = dict(registry.get(grad_op).default_attrs(), **{k: v for k, v in attrs.items() if k.startswith("trans")})
    for wanted in [written, *((slot,) for slot in written)]:
        gctx = KernelContext(outputs=frozenset(wanted))
        douts = _filled_completely(grad_op, gins, gattrs, gctx)
        gwant = registry.get(grad_op).kernel("cpu")(gins, dict(gattrs), gctx)
        assert set(douts) == set(gwant) == set(wanted)
        assert all(douts[slot].tobytes() == gwant[slot].tobytes() for slot in wanted)


_ENGINES = {  # a dropout's context, made anew for each call: the same draws each time
    "numpy": lambda: KernelContext(rng=np.random.default_rng(5)),
    "paddle": lambda: KernelContext(rng=Mt19937_64.from_int(5)),
}


def _dropout_filled(op, ins, attrs, engine):
    """dropout's or dropout_grad's out-kernel into two sentinel patterns, each call's context seeded alike; the
    outputs of the first, which every element of both runs gives alike."""
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, _ENGINES[engine]())
    answers = []
    for fill, mask_fill in ((np.nan, 77), (-7.25, 5)):  # (a mask's uint8 takes no -5)
        outs = {
            s: np.full(shape, mask_fill if s == "Mask" else fill, dtype) for s, (shape, dtype) in meta.outputs.items()
        }
        given = dict(outs)
        extra = (_ENGINES[engine](),) if getattr(structured.cpu, "takes_context", False) else ()
        assert structured.cpu(ins, outs, dict(attrs), meta, *extra) is None
        assert all(outs[slot] is buffer for slot, buffer in given.items()), op
        answers.append(outs)
    assert all(answers[0][s].tobytes() == answers[1][s].tobytes() for s in answers[0]), f"{op} ({meta.variant})"
    return answers[0]


@pytest.mark.parametrize("engine", sorted(_ENGINES))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES["dropout"], ids=[c.id for c in CASES["dropout"]])
def test_dropout_out_kernels_fill_the_buffers_they_are_handed(case, dtype, engine):
    """Every op case of dropout (training, upscale_in_train, p 0 and 1, is_test, a fixed seed, a Seed input) and
    dropout_grad over its mask, in float64 and float32, drawn by numpy's Generator and by Paddle's engine: the
    out-kernels fill every element of the buffers they are handed with what the op's kernel computes with a
    context seeded alike (the call's own draws: the context is handed to the out-kernel, never kept)."""
    attrs = _attrs_with_defaults(case)
    ins = {s: np.asarray(v).astype(dtype) if s == "X" else v for s, v in case.inputs.items()}
    outs = _dropout_filled("dropout", ins, attrs, engine)
    want = registry.get("dropout").kernel("cpu")(ins, dict(attrs), _ENGINES[engine]())
    assert set(outs) == set(want) and all(outs[s].tobytes() == want[s].tobytes() for s in want)
    if "Mask" in outs:
        gins = {"Mask": outs["Mask"], "Out@GRAD": rng.uniform(-1, 1, size=outs["Out"].shape).astype(dtype)}
        douts = _dropout_filled("dropout_grad", gins, attrs, engine)
        gwant = registry.get("dropout_grad").kernel("cpu")(gins, dict(attrs))
        assert douts["X@GRAD"].tobytes() == gwant["X@GRAD"].tobytes()


def test_a_dropout_step_decides_its_meta_once_per_shape_signature_and_draws_on_every_run():
    """dropout's step decides its variant once per shape and dtype of X, and draws its mask on every run: with a
    fixed seed the mask its kernel draws from that seed, without one a new mask each run."""
    feeds = [rng.standard_normal((20, 30)).astype(np.float32)] * 3 + [rng.standard_normal((10, 30))] * 2
    for fixed, masks in ((True, 1), (False, 3)):
        attrs = {"dropout_prob": 0.5, "fix_seed": fixed, "seed": 11 if fixed else 0}  # (a seed alone: one stream a run)
        step = _step("dropout", {"X": ["x"]}, {"Out": ["y"], "Mask": ["m"]}, attrs)
        inner = inspect.unwrap(step.kernel)
        rule, calls, seen = inner.meta, [], set()

        def counted(attrs, ins, facts, rule=rule, calls=calls):
            calls.append(ins["X"].shape)
            return rule(attrs, ins, facts)

        inner.meta = counted
        full = dict(registry.get("dropout").default_attrs(), **attrs)
        for x in feeds:
            values = Values({"x": x})
            run_step(step, values)
            assert values["y"].tobytes() == (x * values["m"]).astype(x.dtype).tobytes()
            if fixed:
                want = registry.get("dropout").kernel("cpu")({"X": x}, dict(full))
                assert values["m"].tobytes() == want["Mask"].tobytes()
            if x.dtype == np.float32:
                seen.add(values["m"].tobytes())
        assert calls == [(20, 30), (10, 30)] and len(seen) == masks


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_cast_keeps_a_0d_value_0d_in_every_dtype(dtype):
    """A 0-D X cast is 0-D, as its shape rule says (to float16, Paddle's conversion, it was [1])."""
    x = np.array(2.5).astype(dtype)
    for out in ("float16", "float32", "int64"):
        got = registry.get("cast").kernel("cpu")({"X": x}, {"in_dtype": None, "out_dtype": out})["Out"]
        assert got.shape == () and got.dtype == out and got == x.astype(out)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES["embedding lookup"], ids=[c.id for c in CASES["embedding lookup"]])
def test_embedding_out_kernels_fill_the_buffers_they_are_handed(case, dtype):
    """Every op case of lookup_table and lookup_table_v2 (W float64 and float32, Ids int64), forward and dense
    gradient: the out-kernels fill every element of the sentinel buffers they are handed with what the op's
    kernel computes; the row-sparse gradient (is_sparse, a fresh SelectedRows) is the kernel's rows and values."""
    attrs, ctx = _attrs_with_defaults(case), KernelContext()
    ins = {"W": case.inputs["W"].astype(dtype), "Ids": case.inputs["Ids"]}
    outs = _filled_completely(case.op, ins, attrs, ctx)
    assert outs["Out"].tobytes() == registry.get(case.op).kernel("cpu")(ins, dict(attrs))["Out"].tobytes()
    grad = registry.get(case.op + "_grad")
    gins = dict(ins, **{"Out@GRAD": rng.uniform(-1, 1, size=outs["Out"].shape).astype(dtype)})
    douts = _filled_completely(case.op + "_grad", gins, dict(attrs, is_sparse=False), ctx)
    want = grad.kernel("cpu")(gins, dict(attrs, is_sparse=False))["W@GRAD"]
    assert douts["W@GRAD"].tobytes() == want.tobytes()
    sparse_attrs = dict(attrs, is_sparse=True)
    meta, given = grad.structured.meta(sparse_attrs, gins, ctx), {}
    assert meta.fresh and meta.outputs["W@GRAD"] == (ins["W"].shape, ins["W"].dtype)
    grad.structured.cpu(gins, given, sparse_attrs, meta)
    rows, want = given["W@GRAD"], grad.kernel("cpu")(gins, sparse_attrs)["W@GRAD"]
    assert rows.rows.tobytes() == want.rows.tobytes() and rows.values.tobytes() == want.values.tobytes()
    assert rows.height == ins["W"].shape[0] and rows.to_dense().tobytes() == douts["W@GRAD"].tobytes()


@pytest.mark.parametrize("op_type", ["lookup_table", "lookup_table_v2"])
def test_a_lookup_step_decides_its_meta_once_per_shape_signature(op_type):
    """A lookup's step decides Out's shape and its variant once per shape and dtype of W and Ids (from 256 ids of a
    float table the rows copied on the threads, numpy's take below or for ints), gives the op's kernel's bits,
    and refuses an id out of range with the one line it always gave, on every run."""
    step = _step(op_type, {"W": ["w"], "Ids": ["ids"]}, {"Out": ["out"]}, {"padding_idx": 2})
    inner = inspect.unwrap(step.kernel)
    rule, calls = inner.meta, []

    def counted(attrs, ins, facts):
        decided = rule(attrs, ins, facts)
        calls.append((ins["Ids"].shape, str(ins["W"].dtype), decided.variant, decided.outputs["Out"][0]))
        return decided

    inner.meta = counted
    kernel, full = registry.get(op_type).kernel("cpu"), dict(step.attrs)
    w = rng.standard_normal((10, 3)).astype(np.float32)
    feeds = [(w, rng.integers(0, 10, (4, 1))) for _ in range(3)] + [(w, rng.integers(0, 10, (300, 1)))] * 2
    feeds += [(w.astype(np.int64), rng.integers(0, 10, (4, 1)))]
    for w_value, ids in feeds:
        values = Values({"w": w_value, "ids": ids})
        run_step(step, values)
        assert values["out"].tobytes() == kernel({"W": w_value, "Ids": ids}, dict(full))["Out"].tobytes()
    kept = (lambda n: (n, 1, 3)) if op_type == "lookup_table_v2" else (lambda n: (n, 3))
    assert calls == [
        ((4, 1), "float32", "gather", kept(4)),
        ((300, 1), "float32", "rows", kept(300)),
        ((4, 1), "int64", "gather", kept(4)),
    ]
    for _ in range(2):
        with pytest.raises(Exception, match=r"Ids hold 10, outside the table of 10 rows \(W \[10, 3\]\)$"):
            run_step(step, Values({"w": w, "ids": np.array([[1], [10]])}))


def test_a_mul_step_decides_its_meta_once_per_shape_signature():
    """mul's step decides its products once per shape and dtype of X and Y (float32 and float64 the GEMM path,
    int64 numpy's), and gives the op's kernel's bits."""
    step = _step("mul", {"X": ["x"], "Y": ["y"]}, {"Out": ["out"]}, {"x_num_col_dims": 1, "y_num_col_dims": 1})
    inner = inspect.unwrap(step.kernel)
    rule, calls = inner.meta, []

    def counted(attrs, ins, facts):
        decided = rule(attrs, ins, facts)
        calls.append((ins["X"].shape, decided.args[0][0].path))
        return decided

    inner.meta = counted
    kernel = registry.get("mul").kernel("cpu")
    w = rng.standard_normal((6, 3)).astype(np.float32)
    feeds = [(rng.standard_normal((4, 6)).astype(np.float32), w) for _ in range(3)]
    feeds += [(rng.standard_normal((2, 3, 2)).astype(np.float32), w)] * 2 + [
        (np.arange(24).reshape(4, 6), w.astype(int))
    ]
    for x, y in feeds:
        values = Values({"x": x, "y": y})
        run_step(step, values)
        assert values["out"].tobytes() == kernel({"X": x, "Y": y}, dict(step.attrs))["Out"].tobytes()
    assert calls == [((4, 6), "gemm"), ((2, 3, 2), "gemm"), ((4, 6), "numpy")]


@pytest.mark.parametrize("axis", [-1, 1])
def test_a_softmax_with_cross_entropy_step_decides_its_meta_once_per_shape_signature(axis):
    """softmax_with_cross_entropy's step (its axis moved last around it by its layout) runs its meta rule once
    per shape of its values, and gives what the op's kernel gives; its gradient's step too."""
    program = Program()
    block = program.global_block()
    for name in ("logits", "label", "softmax", "loss", "dloss", "dlogits"):
        block.create_var(name=name)
    attrs = {"axis": axis}
    block.append_op(
        "softmax_with_cross_entropy",
        {"Logits": ["logits"], "Label": ["label"]},
        {"Softmax": ["softmax"], "Loss": ["loss"]},
        attrs,
    )
    grad_inputs = {"Label": ["label"], "Softmax": ["softmax"], "Loss@GRAD": ["dloss"]}
    block.append_op("softmax_with_cross_entropy_grad", grad_inputs, {"Logits@GRAD": ["dlogits"]}, attrs)
    steps = [OpStep(op, CPUPlace()) for op in block.ops]
    calls = []
    for step in steps:
        inner = inspect.unwrap(step.kernel)
        rule = inner.meta

        def counted(attrs, ins, facts, rule=rule, op=step.op.type):
            calls.append((op, tuple(next(iter(ins.values())).shape)))
            return rule(attrs, ins, facts)

        inner.meta = counted
    kernels = [registry.get(step.op.type).kernel("cpu") for step in steps]
    for rows in (4, 4, 6, 6, 4):
        logits = rng.normal(size=(rows, 5, 3) if axis == 1 else (rows, 5)).astype(np.float32)
        label = rng.integers(0, 5, size=(rows, 1, 3) if axis == 1 else (rows, 1))
        values = Values({"logits": logits, "label": label})
        run_step(steps[0], values)
        want = kernels[0]({"Logits": logits, "Label": label}, dict(steps[0].attrs))
        assert values["softmax"].tobytes() == want["Softmax"].tobytes()
        assert values["loss"].tobytes() == want["Loss"].tobytes()
        values["dloss"] = np.ones_like(values["loss"])
        run_step(steps[1], values)
        gins = {"Label": label, "Softmax": want["Softmax"], "Loss@GRAD": values["dloss"]}
        assert values["dlogits"].tobytes() == kernels[1](gins, dict(steps[1].attrs))["Logits@GRAD"].tobytes()
    assert [op for op, _ in calls] == ["softmax_with_cross_entropy", "softmax_with_cross_entropy_grad"] * 2
    assert [shape[0] for _, shape in calls] == [4, 4, 6, 6]  # (4 rows again: its signature's Meta kept)


def _step(op_type, inputs, outputs, attrs=None):
    program = Program()
    block = program.global_block()
    for name in [n for names in {**inputs, **outputs}.values() for n in names]:
        block.create_var(name=name)
    block.append_op(op_type, inputs, outputs, attrs or {})
    return OpStep(block.ops[0], CPUPlace())


@pytest.mark.parametrize("op_type", ["relu", "tanh"])
def test_a_step_decides_its_meta_once_per_shape_signature(op_type):
    """Repeated runs of one op's step: its meta rule runs once per shape and dtype of its input (tanh's
    run-time dtype check with it), the outputs are new arrays each run, equal to the op's kernel's."""
    step = _step(op_type, {"X": ["x"]}, {"Out": ["y"]})
    rule, calls = step.kernel.meta, []

    def counted(attrs, ins, facts):
        calls.append(ins["X"].shape)
        return rule(attrs, ins, facts)

    step.kernel.meta = counted
    kernel = registry.get(op_type).kernel("cpu")
    feeds = [np.linspace(-2, 2, 16, dtype=np.float32)] * 3 + [np.ones((2, 3))] * 2 + [np.zeros(16, np.float32)]
    seen = []
    for x in feeds:
        values = Values({"x": x})
        run_step(step, values)
        assert values["y"].tobytes() == kernel({"X": x}, {})["Out"].tobytes()
        assert all(values["y"] is not y for y in seen)
        seen.append(values["y"])
    assert calls == [(16,), (2, 3)]


@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
def test_a_pool2d_step_decides_its_meta_once_per_shape_signature(data_format):
    """pool2d's step (NHWC: its NCHW kernel between transposes, kernels/layout.py) decides its loop once per
    shape and dtype of X: float32 2x2 windows the unrolled loop, float64 too, int32 numpy's path; its
    outputs are the op's kernel's, bit for bit."""
    attrs = {"pooling_type": "max", "ksize": [2, 2], "strides": [2, 2], "data_format": data_format}
    step = _step("pool2d", {"X": ["x"]}, {"Out": ["y"]}, attrs)
    inner = inspect.unwrap(step.kernel)
    rule, calls = inner.meta, []

    def counted(attrs, ins, facts):
        decided = rule(attrs, ins, facts)
        calls.append((ins["X"].shape, decided.variant, decided.loop))
        return decided

    inner.meta = counted
    kernel = registry.get("pool2d").kernel("cpu")
    feeds = [rng.standard_normal((2, 3, 8, 8)).astype(np.float32) for _ in range(3)]
    feeds += [rng.standard_normal((2, 3, 6, 6))] * 2 + [np.arange(2 * 3 * 8 * 8, dtype=np.int32).reshape(2, 3, 8, 8)]
    full = dict(registry.get("pool2d").default_attrs(), **attrs)
    for x in feeds:
        values = Values({"x": x})
        run_step(step, values)
        assert values["y"].tobytes() == kernel({"X": x}, dict(full))["Out"].tobytes()
    nchw = (lambda s: s) if data_format == "NCHW" else (lambda s: (s[0], s[3], s[1], s[2]))
    assert calls == [
        (nchw((2, 3, 8, 8)), "loop", "max_pool_2x2"),
        (nchw((2, 3, 6, 6)), "loop", "max_pool_2x2"),
        (nchw((2, 3, 8, 8)), "numpy", ""),
    ]


@pytest.mark.parametrize("dtype", ["int32", "float16"])
def test_pool2d_of_an_empty_batch_of_numpys_dtypes_is_empty(dtype):
    """pool2d and pool2d_grad of X [0, 2, 4, 4] in a dtype numpy's path takes (3x3 windows, stride 1: window by
    window): Out [0, 2, 2, 2] and X@GRAD [0, 2, 4, 4] of X's dtype, where the max gradient failed with numpy's
    reshape error (a -1 in a reshape of 0 elements); an average pool of ints is refused in one line (Paddle 2.6 has
    no integer pool kernel), where it failed with numpy's cast error."""
    x = np.zeros((0, 2, 4, 4), dtype)
    attrs = dict(registry.get("pool2d").default_attrs(), pooling_type="max", ksize=[3, 3], strides=[1, 1])
    out = registry.get("pool2d").kernel("cpu")({"X": x}, dict(attrs))["Out"]
    dx = registry.get("pool2d_grad").kernel("cpu")({"X": x, "Out": out, "Out@GRAD": out}, dict(attrs))["X@GRAD"]
    assert (out.shape, out.dtype, dx.shape, dx.dtype) == ((0, 2, 2, 2), x.dtype, x.shape, x.dtype)
    attrs["pooling_type"] = "avg"
    if dtype == "int32":
        for op, ins in (("pool2d", {"X": x}), ("pool2d_grad", {"X": x, "Out": out, "Out@GRAD": out})):
            with pytest.raises(PeError, match=f"{op}: average pooling of int32 X: Paddle 2.6 has no integer pool"):
                registry.get(op).kernel("cpu")(ins, dict(attrs))


def test_an_average_pool3d_of_ints_is_refused_as_pool2d_s():
    """pool3d and pool3d_grad of int X averaged: refused in one line as pool2d's (Paddle 2.6 has no integer pool
    kernel), where pe truncated each mean; a max pool of ints is exact and computed."""
    x = np.arange(2 * 2 * 4 * 4 * 4, dtype=np.int32).reshape(2, 2, 4, 4, 4)
    attrs = dict(registry.get("pool3d").default_attrs(), pooling_type="max", ksize=[3, 3, 3], strides=[1, 1, 1])
    out = registry.get("pool3d").kernel("cpu")({"X": x}, dict(attrs))["Out"]
    assert out.dtype == np.int32 and out[0, 0, 0, 0, 0] == x[0, 0, :3, :3, :3].max()
    attrs["pooling_type"] = "avg"
    for op, ins in (("pool3d", {"X": x}), ("pool3d_grad", {"X": x, "Out": out, "Out@GRAD": out})):
        with pytest.raises(PeError, match=f"{op}: average pooling of int32 X: Paddle 2.6 has no integer pool"):
            registry.get(op).kernel("cpu")(ins, dict(attrs))


def test_a_step_keeps_the_metas_of_a_few_signatures():
    """Shapes that change every batch (sequence lengths) do not pile up Metas in a step: at most KEPT."""
    from pe_cli.kernels.structured import KEPT

    step = _step("relu", {"X": ["x"]}, {"Out": ["y"]})
    for n in range(1, 3 * KEPT):
        values = Values({"x": np.full(n, -1.0)})
        run_step(step, values)
        assert values["y"].shape == (n,) and not values["y"].any()
        assert 0 < len(step.kernel.metas) <= KEPT


def test_a_step_refuses_a_dtype_its_op_does_not_take_on_every_run():
    step = _step("tanh", {"X": ["x"]}, {"Out": ["y"]})
    for _ in range(2):
        with pytest.raises(Exception, match="tanh: X holds int64 values; it takes float16 or float32 or float64"):
            run_step(step, Values({"x": np.arange(4)}))


def test_structured_ops_are_bound_by_object():
    """Every op type registered with a structured kernel binds its meta rule and out-kernels as functions (no
    module or function named by a string), and its CPU kernel is made of those two."""
    structured = {t: registry.get(t) for t in registry.all_op_types() if registry.get(t).structured is not None}
    assert structured
    for op_type, opdef in structured.items():
        s = opdef.structured
        assert callable(s.meta) and callable(s.cpu) and (s.cuda is None or callable(s.cuda)), op_type
        assert inspect.unwrap(opdef.kernel("cpu")).structured == (s.meta, s.cpu), op_type
    unlisted = set(structured) - set().union(*CONVERTED.values())
    assert not unlisted, f"structured op types of no family listed in CONVERTED: {sorted(unlisted)}"


@pytest.mark.parametrize("family", sorted(CONVERTED))
def test_converted_families_stay_converted(family):
    """No op type of a converted family is bound to its CPU kernel by its kernel module's name again."""
    for op_type in sorted(CONVERTED[family]):
        opdef = registry.get(op_type)
        assert opdef.structured is not None and opdef.structured.cpu is not None, f"{family}: {op_type}"
        made_of = getattr(inspect.unwrap(opdef.kernel("cpu")), "structured", None)
        assert made_of == (opdef.structured.meta, opdef.structured.cpu), f"{family}: {op_type}"


def test_float32_sigmoid_over_its_input_computes_what_it_computes_beside_it():
    """The sigmoid kernel told it may write over its input (a fused batch_norm + sigmoid's) gives the bits it
    gives into a new array: its last size % 8 values (libm's exp) read the input, not its own output."""
    x = np.linspace(-3, 3, 15, dtype=np.float32)
    kernel = registry.get("sigmoid").kernel("cpu")
    want = kernel({"X": x.copy()}, {})["Out"]
    got = kernel({"X": x.copy()}, {}, KernelContext(inplace=True))["Out"]
    assert got.tobytes() == want.tobytes()


def test_fused_batch_norm_and_sigmoid_computes_batch_norm_then_sigmoid():
    """fused_batch_norm_act (the fuse_bn_act_ops pass) lets its sigmoid write over the normalized value: in
    float32 every value is the sigmoid of batch_norm's, the last size % 8 too (30 values: 6 of them)."""
    x = rng.standard_normal((2, 3, 1, 5)).astype(np.float32)
    ins = {"X": x, "Scale": np.ones(3, np.float32), "Bias": np.zeros(3, np.float32)}
    ins.update(Mean=np.zeros(3, np.float32), Variance=np.ones(3, np.float32))
    fused = registry.get("fused_batch_norm_act")
    got = fused.kernel("cpu")(ins, dict(fused.default_attrs(), act_type="sigmoid"))["Y"]
    y = registry.get("batch_norm").kernel("cpu")(ins, registry.get("batch_norm").default_attrs())["Y"]
    assert got.tobytes() == registry.get("sigmoid").kernel("cpu")({"X": y}, {})["Out"].tobytes()


@pytest.mark.parametrize(
    "op_type, attrs",
    [("mean", {}), ("reduce_sum", {"dim": [1]}), ("reduce_max", {"dim": [0], "keep_dim": True}), ("reduce_all", {})],
)
def test_a_reduction_step_decides_its_meta_once_per_shape_signature(op_type, attrs):
    """mean's and the reductions' steps run their meta rule once per shape and dtype of X (mean: float32 the
    loop, float16 numpy's sum, int64 ndarray.mean), and give what the op's kernel gives, bit for bit."""
    step = _step(op_type, {"X": ["x"]}, {"Out": ["y"]}, attrs)
    inner = inspect.unwrap(step.kernel)
    rule, calls = inner.meta, []

    def counted(attrs, ins, facts):
        decided = rule(attrs, ins, facts)
        calls.append((ins["X"].shape, str(ins["X"].dtype), decided.variant))
        return decided

    inner.meta = counted
    kernel, full = registry.get(op_type).kernel("cpu"), dict(step.attrs)
    feeds = [rng.standard_normal((3, 4)).astype(np.float32) for _ in range(3)] + [np.ones((3, 4), np.float16)] * 2
    feeds += [np.arange(10, dtype=np.int64).reshape(5, 2)] * 2
    for x in feeds:
        values = Values({"x": x})
        run_step(step, values)
        want = kernel({"X": x}, dict(full))["Out"]
        assert values["y"].dtype == want.dtype and values["y"].tobytes() == want.tobytes()
    variants = {"mean": ("loop", "sum", "numpy")}.get(op_type, ("numpy",) * 3)
    assert calls == [((3, 4), "float32", variants[0]), ((3, 4), "float16", variants[1]), ((5, 2), "int64", variants[2])]


def test_a_fill_constant_step_decides_its_meta_once_unless_a_tensor_gives_its_shape():
    """fill_constant's step: of its attributes alone, its meta rule runs once; where ShapeTensor gives the shape,
    each run's values give it (a ShapeTensor of the same shape and dtype, other values: another Out)."""
    step = _step("fill_constant", {}, {"Out": ["y"]}, {"shape": [2, 3], "value": 1.5, "dtype": "float32"})
    for _ in range(3):
        values = Values({})
        run_step(step, values)
        assert values["y"].tobytes() == np.full((2, 3), 1.5, np.float32).tobytes()
    assert list(inspect.unwrap(step.kernel).metas) == [()]
    step = _step("fill_constant", {"ShapeTensor": ["s"]}, {"Out": ["y"]}, {"value": 2.0, "dtype": "int64"})
    for shape in ([2, 3], [4, 1], [0, 5]):
        values = Values({"s": np.array(shape, np.int32)})
        run_step(step, values)
        assert values["y"].tobytes() == np.full(shape, 2, np.int64).tobytes() and values["y"].shape == tuple(shape)


def _momentum_ins(grad=None, **given):
    """momentum's inputs: [6, 5] float32 values (Grad ``grad``(Param) where given), ``given`` beside them."""
    ins = {s: rng.uniform(-1, 1, (6, 5)).astype(np.float32) for s in ("Param", "Grad", "Velocity")}
    ins["LearningRate"] = np.array([0.1], np.float32)
    ins.update(given)
    if grad is not None:
        ins["Grad"] = grad(ins["Param"])
    return ins


def _momentum(ins, ctx):
    attrs = dict(registry.get("momentum").default_attrs(), multi_precision="MasterParam" in ins)
    return registry.get("momentum").kernel("cpu")(ins, attrs, ctx)


def test_an_update_writes_over_its_parameter_and_state_where_its_meta_and_the_executor_let_it():
    """momentum's Meta lets ParamOut be Param's buffer and VelocityOut Velocity's: told it may update in place
    (ctx.update_in_place, the executor's leave) its out-kernel's in-place loop writes them, the bits of the
    update into new buffers; not where Grad shares Param's memory, nor over a MasterParam (multi_precision),
    nor without the leave."""
    leave = KernelContext(update_in_place=True)
    ins = _momentum_ins()
    want = _momentum({s: v.copy() for s, v in ins.items()}, KernelContext())
    outs = _momentum(ins, leave)
    assert outs["ParamOut"] is ins["Param"] and outs["VelocityOut"] is ins["Velocity"]
    assert all(outs[s].tobytes() == want[s].tobytes() for s in want)
    ins = _momentum_ins()
    outs = _momentum(ins, KernelContext())
    assert outs["ParamOut"] is not ins["Param"] and outs["VelocityOut"] is not ins["Velocity"]
    ins = _momentum_ins(grad=lambda p: p[::-1])  # (a view of Param)
    want = _momentum({s: v.copy() for s, v in ins.items()}, KernelContext())
    outs = _momentum(ins, leave)
    assert outs["ParamOut"] is not ins["Param"] and outs["VelocityOut"] is ins["Velocity"]
    assert all(outs[s].tobytes() == want[s].tobytes() for s in want)
    ins = _momentum_ins(MasterParam=rng.uniform(-1, 1, (6, 5)))
    outs = _momentum(ins, leave)
    assert not any(outs[s] is ins[s[:-3]] for s in ("ParamOut", "VelocityOut", "MasterParamOut"))


def test_updates_of_row_sparse_values_through_their_out_kernels():
    """sgd's row-sparse variants: a row-sparse Grad moves its rows (duplicates summed) over a dense Param, in
    place where the executor lets it; a row-sparse Param (a table's rows) gives a new one; adagrad's rows move
    Param and Moment in place, or copies of them; the rows of momentum's row-sparse Grad are made dense (Grad 0
    elsewhere), and its Paddle 2.x terms refused in one line."""
    from pe_cli.base.selected_rows import SelectedRows

    p, lr = rng.uniform(-1, 1, (5, 3)), np.array([0.5])
    g = SelectedRows(np.array([1, 3, 1]), rng.uniform(-1, 1, (3, 3)), 5)
    sgd = registry.get("sgd").kernel("cpu")
    want = p.copy()
    want[[1, 3]] -= 0.5 * np.stack([g.values[0] + g.values[2], g.values[1]])
    given = p.copy()
    out = sgd({"Param": given, "Grad": g, "LearningRate": lr}, {}, KernelContext(update_in_place=True))["ParamOut"]
    assert out is given and np.allclose(out, want)
    table = SelectedRows(np.array([3, 1]), p[[3, 1]], 5)
    out = sgd({"Param": table, "Grad": g, "LearningRate": lr}, {})["ParamOut"]
    assert isinstance(out, SelectedRows) and np.allclose(out.to_dense(), want * (np.arange(5) % 2 == 1)[:, None])
    adagrad, m = registry.get("adagrad"), rng.uniform(0, 1, (5, 3))
    summed = np.zeros((5, 3))
    np.add.at(summed, g.rows, g.values)
    m_want = np.where(np.isin(np.arange(5), g.rows)[:, None], m + summed * summed, m)
    p_want = p - 0.5 * summed / (np.sqrt(m_want) + 1e-6)
    for leave in (KernelContext(update_in_place=True), KernelContext()):
        given = {"Param": p.copy(), "Grad": g, "Moment": m.copy(), "LearningRate": lr}
        outs = adagrad.kernel("cpu")(given, adagrad.default_attrs(), leave)
        assert (outs["ParamOut"] is given["Param"]) == leave.update_in_place == (outs["MomentOut"] is given["Moment"])
        assert np.allclose(outs["ParamOut"], p_want) and np.allclose(outs["MomentOut"], m_want)
    momentum, v = registry.get("momentum"), np.zeros((5, 3))
    ins = {"Param": p, "Grad": g, "Velocity": v, "LearningRate": lr}
    dense = momentum.kernel("cpu")(dict(ins, Grad=g.to_dense()), momentum.default_attrs())
    outs = momentum.kernel("cpu")(ins, momentum.default_attrs())
    assert all(outs[s].tobytes() == dense[s].tobytes() for s in dense)
    with pytest.raises(Exception, match="momentum: rescale_grad and l2_decay of a row-sparse Grad are not supported"):
        momentum.kernel("cpu")(ins, dict(momentum.default_attrs(), rescale_grad=0.5))


def test_adam_writes_over_its_parameter_and_moments_where_its_outputs_earlier_values_are_them():
    """adam reads its outputs' earlier values (reads_outputs: ParamOut, Moment1Out, ... the inputs' own arrays
    where they are one variable, as an optimizer's program makes them): told it may update in place, its Meta's
    donations still hold (an output's earlier value is no other input), the bits of the update into new buffers;
    a Grad that is Moment1's array keeps Moment1 from being written over."""
    adam = registry.get("adam")
    ins = {s: rng.uniform(0, 1, (4, 3)).astype(np.float32) for s in ("Param", "Grad", "Moment1", "Moment2")}
    ins.update(LearningRate=np.array([0.01], np.float32), Beta1Pow=np.array([0.9], np.float32))
    ins.update(Beta2Pow=np.array([0.99], np.float32))
    want = adam.kernel("cpu")({s: v.copy() for s, v in ins.items()}, adam.default_attrs())
    given = dict(ins, ParamOut=ins["Param"], Moment1Out=ins["Moment1"], Moment2Out=ins["Moment2"])
    outs = adam.kernel("cpu")(given, adam.default_attrs(), KernelContext(update_in_place=True))
    assert all(outs[f"{s}Out"] is ins[s] for s in ("Param", "Moment1", "Moment2"))
    assert all(outs[s].tobytes() == want[s].tobytes() for s in want)
    aliased = {s: v.copy() for s, v in ins.items()}
    aliased["Grad"] = aliased["Moment1"]
    outs = adam.kernel("cpu")(aliased, adam.default_attrs(), KernelContext(update_in_place=True))
    assert outs["Moment1Out"] is not aliased["Moment1"] and outs["ParamOut"] is aliased["Param"]
