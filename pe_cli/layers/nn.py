"""Fluid 1.8's ``layers.nn``: the neural-network layers, which pe defines in its family modules
(convolution, pooling, normalization, activation, image, padding, embedding, dropout, the loss
families, linalg, matrix, manipulation, indexing, reduction, random, ...)."""
from .fluid_module import resolver

__all__ = ["adaptive_pool2d", "adaptive_pool3d", "add_position_encoding", "addcmul", "addmm", "affine_channel",
           "affine_grid", "allclose", "autoincreased_step_counter", "batch_norm", "bilinear_tensor_product", "bmm",
           "brelu", "chunk_eval", "clamp", "clip", "clip_by_norm", "continuous_value_model", "conv2d",
           "conv2d_transpose", "conv3d", "conv3d_transpose", "cos_sim", "crf_decoding", "crop", "crop_tensor", "cross",
           "ctc_greedy_decoder", "data_norm", "deformable_conv", "deformable_roi_pooling", "diag_embed", "dice_loss",
           "dist", "dot", "dropout", "elementwise_add", "elementwise_div", "elementwise_equal", "elementwise_floordiv",
           "elementwise_max", "elementwise_min", "elementwise_mod", "elementwise_mul", "elementwise_pow",
           "elementwise_sub", "elu", "embedding", "expand", "expand_as", "fc", "filter_by_instag", "flatten", "flip",
           "fsp_matrix", "gather", "gather_nd", "gather_tree", "gaussian_random", "gaussian_random_batch_size_like",
           "get_tensor_from_selected_rows", "grid_sampler", "group_norm", "hard_sigmoid", "hard_swish", "hash",
           "im2sequence", "image_resize", "image_resize_short", "index_sample", "index_select", "inplace_abn",
           "instance_norm", "interpolate", "l2_normalize", "label_smooth", "layer_norm", "leaky_relu",
           "linear_chain_crf", "lod_append", "lod_reset", "log", "log1p", "log_loss", "log_softmax", "logical_and",
           "logical_not", "logical_or", "logical_xor", "logsumexp", "lrn", "matmul", "maxout", "mean", "mean_iou",
           "merge_selected_rows", "meshgrid", "mish", "mul", "multiplex", "nonzero", "one_hot", "pad", "pad2d",
           "pad_constant_like", "pixel_shuffle", "pool2d", "pool3d", "pow", "prelu", "prroi_pool", "psroi_pool",
           "py_func", "randint", "randn", "random_crop", "randperm", "rank", "reduce_all", "reduce_any", "reduce_max",
           "reduce_mean", "reduce_min", "reduce_prod", "reduce_sum", "relu", "relu6", "reshape", "resize_bilinear",
           "resize_nearest", "resize_trilinear", "roi_align", "roi_pool", "roll", "row_conv", "sampling_id", "scale",
           "scatter", "scatter_nd", "scatter_nd_add", "selu", "shape", "shard_index", "shuffle_channel", "sign",
           "similarity_focus", "size", "slice", "smooth_l1", "soft_relu", "softmax", "space_to_depth", "spectral_norm",
           "split", "squeeze", "stack", "stanh", "strided_slice", "sum", "swish", "t", "temporal_shift", "topk",
           "transpose", "unfold", "uniform_random", "uniform_random_batch_size_like", "unique", "unique_with_counts",
           "unsqueeze", "unstack", "where"]
__getattr__ = resolver(__name__, __all__)
