"""What Paddle 2.6.2 reads of a saved 2.x program that a value does not show (written by
tools/paddle26_desc_kinds.py from Paddle 2.6.2's op manifest; fluid_model_write.py writes by it): the
attribute types by AttrType code (KINDS: ``op.attr``), the attributes Paddle 2.6.2 names otherwise than
Fluid 1.8 (RENAMED) and the values it writes as float64 (FLOAT64_VALUES). Each op type's version (the
op_version_map Paddle 2.6.2 writes) is in op_versions.py (VERSIONS)."""

KINDS = {}
KINDS.update(  # INT
    dict.fromkeys(
        """
        assign_value.dtype bernoulli_p.dtype cast.out_dtype cast.in_dtype cast_p.dtype coalesce_tensor.dtype
        detection_map.class_num distributed_lookup_table.dtype eye.dtype fill.dtype fill_any_like.dtype
        fill_constant.dtype fill_constant_batch_size_like.dtype fill_constant_p.dtype fill_zeros_like2.dtype
        fusion_seqconv_eltadd_relu.contextLength gaussian_random.dtype linspace.dtype maxout.groups
        nce.num_total_classes one_hot_v2.dtype randint.low randint.high randint.dtype randperm.n
        randperm.dtype sequence_mask.out_dtype shard_index.index_num shard_index.nshards shard_index.shard_id
        tdm_child.dtype tdm_sampler.dtype temporal_shift.seg_num truncated_gaussian_random.dtype
        uniform_random.dtype uniform_random_batch_size_like.dtype uniform_random_p.seed
        uniform_random_p.dtype unique.dtype unique_with_counts.dtype unstack.num
        """.split(),
        0,
    )
)
KINDS.update(  # FLOAT
    dict.fromkeys(
        """
        adadelta.rho adadelta.epsilon adagrad.epsilon adam.beta1 adam.beta2 adam.epsilon adamax.beta1
        adamax.beta2 adamax.epsilon adamw.beta1 adamw.beta2 adamw.epsilon adamw.lr_ratio adamw.coeff
        add_position_encoding.alpha add_position_encoding.beta addmm.Beta addmm.Alpha anchor_generator.offset
        average_accumulates.average_window batch_norm.momentum batch_norm.epsilon bernoulli_p.p
        bicubic_interp.scale bilinear_interp.scale bipartite_match.dist_threshold
        box_decoder_and_assign.box_clip brelu.t_min brelu.t_max celu.alpha clip.min clip.max
        clip_by_norm.max_norm coalesce_tensor.constant cudnn_lstm.dropout_prob data_norm.epsilon
        data_norm.summary_decay_rate decayed_adagrad.decay decayed_adagrad.epsilon
        deformable_psroi_pooling.spatial_scale deformable_psroi_pooling.trans_std density_prior_box.step_w
        density_prior_box.step_h density_prior_box.offset dequantize.Scale dequantize.Shift
        dequantize_abs_max.max_range detection_map.overlap_threshold dgc_clip_by_norm.rampup_begin_step
        dgc_clip_by_norm.max_norm dgc_momentum.mu dgc_momentum.regularization_coeff dgc_momentum.rescale_grad
        dgc_momentum.rampup_begin_step diag_v2.padding_value dist.p dpsgd.clip dpsgd.batch_size dpsgd.sigma
        dropout.dropout_prob dropout_nd.dropout_prob elu.alpha exponential.lambda
        fake_dequantize_max_abs.max_range fake_quantize_dequantize_moving_average_abs_max.moving_rate
        fake_quantize_moving_average_abs_max.moving_rate fc.Scale_in fc.Scale_out fill_any.value
        fill_any_like.value fill_constant.value fill_constant_batch_size_like.value fill_constant_p.value
        fill_diagonal.value ftrl.l1 ftrl.l2 ftrl.lr_power fused_adam.beta1 fused_adam.beta2
        fused_adam.epsilon fused_adam.weight_decay fused_elemwise_activation.scale
        fused_elemwise_add_activation.scale fusion_gru.Scale_data fusion_gru.Shift_data
        fusion_lstm.Scale_data fusion_lstm.Shift_data fusion_squared_mat_sub.scalar gaussian_inplace.mean
        gaussian_inplace.std gaussian_random.mean gaussian_random.std generate_proposal_labels.fg_fraction
        generate_proposal_labels.fg_thresh generate_proposal_labels.bg_thresh_hi
        generate_proposal_labels.bg_thresh_lo generate_proposals.nms_thresh generate_proposals.min_size
        generate_proposals.eta generate_proposals_v2.nms_thresh generate_proposals_v2.min_size
        generate_proposals_v2.eta group_norm.epsilon gumbel_softmax.temperature hard_shrink.threshold
        hard_sigmoid.slope hard_sigmoid.offset hard_swish.threshold hard_swish.scale hard_swish.offset
        huber_loss.delta increment.step instance_norm.epsilon label_smooth.epsilon lamb.weight_decay
        lamb.beta1 lamb.beta2 lamb.epsilon lars_momentum.mu lars_momentum.lars_coeff lars_momentum.epsilon
        lars_momentum.rescale_grad layer_norm.epsilon leaky_relu.alpha linear_interp.scale
        locality_aware_nms.score_threshold locality_aware_nms.nms_threshold locality_aware_nms.nms_eta
        log_loss.epsilon logit.eps lrn.k lrn.alpha lrn.beta lstsq.rcond margin_cross_entropy.margin1
        margin_cross_entropy.margin2 margin_cross_entropy.margin3 margin_cross_entropy.scale matmul.alpha
        matmul.Scale_x matmul.Scale_y matmul.Scale_out matrix_nms.score_threshold matrix_nms.post_threshold
        matrix_nms.gaussian_sigma matrix_rank.tol merged_adam.beta1 merged_adam.beta2 merged_adam.epsilon
        merged_momentum.mu merged_momentum.rescale_grad mine_hard_examples.neg_pos_ratio
        mine_hard_examples.neg_dist_threshold mish.threshold momentum.mu momentum.regularization_coeff
        momentum.rescale_grad moving_average_abs_max_scale.moving_rate multiclass_nms.score_threshold
        multiclass_nms.nms_threshold multiclass_nms.nms_eta multiclass_nms2.score_threshold
        multiclass_nms2.nms_threshold multiclass_nms2.nms_eta multiclass_nms3.score_threshold
        multiclass_nms3.nms_threshold multiclass_nms3.nms_eta nearest_interp.scale nms.iou_threshold
        norm.epsilon p_norm.porder p_norm.epsilon pad.pad_value pad2d.pad_value pad3d.value pow.factor
        pow2_decay_with_linear_warmup.base_lr pow2_decay_with_linear_warmup.end_lr prior_box.step_w
        prior_box.step_h prior_box.offset proximal_gd.l1 proximal_gd.l2 psroi_pool.spatial_scale
        push_dense.ScaleDataNorm pyramid_hash.drop_out_percent pyramid_hash.lr quantize.Scale quantize.Shift
        renorm.p renorm.max_norm requantize.Scale_in requantize.Scale_out requantize.Shift_in
        requantize.Shift_out retinanet_detection_output.score_threshold
        retinanet_detection_output.nms_threshold retinanet_detection_output.nms_eta
        retinanet_target_assign.positive_overlap retinanet_target_assign.negative_overlap rmsprop.epsilon
        rmsprop.decay rmsprop.momentum rnn.dropout_prob roi_align.spatial_scale roi_pool.spatial_scale
        rpn_target_assign.rpn_straddle_thresh rpn_target_assign.rpn_positive_overlap
        rpn_target_assign.rpn_negative_overlap rpn_target_assign.rpn_fg_fraction rrelu.lower rrelu.upper
        sampling_id.min sampling_id.max scale.scale scale.bias selu.scale selu.alpha sequence_pool.pad_value
        soft_relu.threshold softplus.beta softplus.threshold softshrink.lambda spectral_norm.eps
        stanh.scale_a stanh.scale_b teacher_student_sigmoid_loss.soft_max_up_bound
        teacher_student_sigmoid_loss.soft_max_lower_bound temporal_shift.shift_ratio
        thresholded_relu.threshold trilinear_interp.scale truncated_gaussian_random.mean
        truncated_gaussian_random.std uniform_random.min uniform_random.max uniform_random.diag_val
        uniform_random_batch_size_like.min uniform_random_batch_size_like.max
        uniform_random_batch_size_like.diag_val uniform_random_inplace.min uniform_random_inplace.max
        uniform_random_inplace.diag_val uniform_random_p.min uniform_random_p.max
        update_loss_scaling.incr_ratio update_loss_scaling.decr_ratio warprnnt.fastemit_lambda
        yolo_box.conf_thresh yolo_box.scale_x_y yolo_box.iou_aware_factor yolov3_loss.ignore_thresh
        yolov3_loss.scale_x_y
        """.split(),
        1,
    )
)
KINDS.update(  # STRING
    dict.fromkeys(
        """
        allclose.rtol allclose.atol
        """.split(),
        2,
    )
)
KINDS.update(  # INTS
    dict.fromkeys(
        """
        flip.axis
        """.split(),
        3,
    )
)
KINDS.update(  # FLOATS
    dict.fromkeys(
        """
        anchor_generator.anchor_sizes anchor_generator.aspect_ratios anchor_generator.variances
        anchor_generator.stride assign_value.fp32_values bicubic_interp_v2.scale bilinear_interp_v2.scale
        box_coder.variance density_prior_box.variances density_prior_box.fixed_sizes
        density_prior_box.fixed_ratios fc.Scale_weights fill.value fusion_gru.Scale_weights
        fusion_lstm.Scale_weights generate_proposal_labels.bbox_reg_weights lars_momentum.lars_weight_decay
        linear_interp_v2.scale merged_momentum.regularization_coeff nearest_interp_v2.scale
        prior_box.min_sizes prior_box.max_sizes prior_box.aspect_ratios prior_box.variances
        trilinear_interp_v2.scale
        """.split(),
        4,
    )
)
KINDS.update(  # STRINGS
    dict.fromkeys(
        """
        fetch_barrier.endpoints fused_elemwise_activation.functor_list
        fused_elemwise_add_activation.functor_list hierarchical_sigmoid.epmap
        hierarchical_sigmoid.table_names listen_and_serv.grad_to_block_id
        listen_and_serv.prefetch_var_name_to_block_id listen_and_serv.sparse_grad_to_param
        lookup_table.table_names lookup_table.epmap merged_momentum.regularization_method
        pull_sparse.InputNames pull_sparse_v2.InputNames push_dense.InputNames py_func.backward_skip_vars
        recurrent.ex_states recurrent.states recurrent.skip_eager_deletion_vars run_program.param_grad_names
        run_program.out_grad_names run_program.x_names run_program.x_grad_names send.send_varnames
        send_barrier.endpoints
        """.split(),
        5,
    )
)
KINDS.update(  # BOOLEANS
    dict.fromkeys(
        """
        share_buffer.share_dims_and_dtype
        """.split(),
        7,
    )
)
KINDS.update(  # LONG
    dict.fromkeys(
        """
        adam.min_row_size_to_use_multithread adamw.min_row_size_to_use_multithread arg_max.axis arg_min.axis
        assert.summarize average_accumulates.max_average_window average_accumulates.min_average_window
        c_embedding.start_index c_embedding.vocab_size concat_p.axis distributed_lookup_table.padding_idx
        eye.num_rows eye.num_columns fft_c2r.last_dim_size fill_diagonal_tensor.offset
        fused_embedding_seq_pool.padding_idx gather_p.axis hash.mod_by histogram.bins load.seek
        lookup_table.padding_idx lookup_table_dequant.padding_idx lookup_table_v2.padding_idx
        nll_loss.ignore_index pow2_decay_with_linear_warmup.warmup_steps
        pow2_decay_with_linear_warmup.total_steps run_program.start_op_index run_program.end_op_index
        run_program.program_id run_program.cuda_graph_pool_id scatter_add_p.axis split_p.axis
        """.split(),
        9,
    )
)
KINDS.update(  # LONGS
    dict.fromkeys(
        """
        assign_value.int64_values bernoulli_p.shape broadcast_p.shape coalesce_tensor.concated_shapes
        coalesce_tensor.concated_ranks empty.shape fake_init.shape fft_c2c.axes fft_c2r.axes fft_r2c.axes
        fill_constant.shape fill_constant_p.shape full_int_array.value gather_p.index gaussian_random.shape
        graph_send_recv.out_size graph_send_ue_recv.out_size hierarchical_sigmoid.height_sections load.shape
        lookup_table.height_sections randint.shape reduce_all.dim reduce_amax.dim reduce_amin.dim
        reduce_any.dim reduce_sum_p.axis reshape_p.shape roll.shifts roll.axis scatter_add_p.index
        set_value.axes set_value.starts set_value.ends set_value.steps set_value.decrease_axes
        set_value.none_axes set_value.shape slice_assign_p.axis slice_assign_p.starts slice_assign_p.ends
        slice_assign_p.strides slice_select_p.axis slice_select_p.starts slice_select_p.ends
        slice_select_p.strides split_p.num_or_sections transpose_p.axis uniform_random.shape
        uniform_random_p.shape
        """.split(),
        11,
    )
)
KINDS.update(  # FLOAT64S
    dict.fromkeys(
        """
        assign_value.fp64_values
        """.split(),
        12,
    )
)
RENAMED = {
    "flip.dims": "axis",
    "roll.dims": "axis",
    "trace.dim1": "axis1",
    "trace.dim2": "axis2",
}
# the values Paddle 2.6.2 writes as float64 (FLOAT64S) for a float64 dtype where Fluid 1.8 had float32's
FLOAT64_VALUES = {"assign_value": ("fp32_values", "fp64_values")}
