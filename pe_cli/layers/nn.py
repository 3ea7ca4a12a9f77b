"""Fluid 1.8's ``layers.nn``: the neural-network layers, which pe defines in its family modules
(convolution, pooling, normalization, activation, image, padding, embedding, dropout, the loss
families, linalg, manipulation, indexing, reduction, ...)."""
from .fluid_module import resolver

__all__ = ["adaptive_pool2d", "adaptive_pool3d", "add_position_encoding", "affine_channel", "affine_grid",
           "autoincreased_step_counter", "batch_norm", "brelu", "chunk_eval", "clip", "clip_by_norm",
           "continuous_value_model", "conv2d", "conv2d_transpose", "cos_sim", "crf_decoding", "crop", "crop_tensor",
           "ctc_greedy_decoder", "deformable_conv", "deformable_roi_pooling", "dropout", "elementwise_add",
           "elementwise_div", "elementwise_floordiv", "elementwise_max", "elementwise_min", "elementwise_mod",
           "elementwise_mul", "elementwise_pow", "elementwise_sub", "elu", "embedding", "expand", "expand_as", "fc",
           "filter_by_instag", "flatten", "fsp_matrix", "gather", "gather_nd", "gather_tree", "gaussian_random",
           "gaussian_random_batch_size_like", "get_tensor_from_selected_rows", "grid_sampler", "group_norm",
           "hard_sigmoid", "hard_swish", "hash", "im2sequence", "image_resize", "image_resize_short", "inplace_abn",
           "instance_norm", "l2_normalize", "label_smooth", "layer_norm", "leaky_relu", "linear_chain_crf",
           "lod_append", "lod_reset", "log", "log_softmax", "logical_and", "logical_not", "logical_or",
           "logical_xor", "lrn", "matmul", "maxout", "mean", "merge_selected_rows", "mul", "one_hot", "pad",
           "pad2d", "pad_constant_like", "pixel_shuffle", "pool2d", "pool3d", "pow", "prelu", "prroi_pool",
           "psroi_pool", "py_func", "random_crop", "reduce_all", "reduce_any", "reduce_max", "reduce_mean",
           "reduce_min", "reduce_prod", "reduce_sum", "relu", "relu6", "reshape", "resize_bilinear",
           "resize_nearest", "resize_trilinear", "roi_align", "roi_pool", "row_conv", "sampling_id", "scale",
           "scatter", "selu", "shuffle_channel", "sign", "similarity_focus", "size", "slice", "smooth_l1",
           "soft_relu", "softmax", "space_to_depth", "split", "squeeze", "stack", "stanh", "strided_slice", "sum",
           "swish", "topk", "transpose", "uniform_random", "uniform_random_batch_size_like", "unique",
           "unique_with_counts", "unsqueeze", "where"]
# Fluid 1.8's nn layers pe added for issue 52 (3-D convolution, the CTR and metric-learning losses, ...)
__all__ += ["bilinear_tensor_product", "conv3d", "conv3d_transpose", "data_norm", "dice_loss", "log_loss", "mean_iou",
            "spectral_norm", "temporal_shift"]
__getattr__ = resolver(__name__, __all__)
