"""Records, with the Fluid 1.8.5 oracle, the ops a representative call of each public layer function
appends (fluid.layers, fluid.nets, fluid.contrib's layers): per call, every op of every block in order
(its type, the input and output slots it fills, with how many variables each) and the parameters it
makes, by name. tests/fluid/test_program_ops_as_fluid.py replays the same calls on pe and compares.

    /work/fluid185/bin/python tools/fluid_program_ops.py [OUT.json]

Each call is a line of Python run in a fresh program under unique_name.guard(), with inputs
declared first (``x``, ``y``: [-1, 8] float32; ``img``: [-1, 4, 8, 8]; ``vol``: [-1, 2, 4, 4, 4];
``seq``: [-1, 8] lod_level 1; ``ids``, ``lbl``: [-1, 1] int64; ``sids``: [-1, 1] int64 lod_level 1;
``t3``: [-1, 3, 8]; ``lod2``: [-1, 1] int64 lod_level 2); ``L`` is fluid.layers, ``nets`` fluid.nets."""

import json
import os
import sys

INPUTS = (
    'x = fluid.data("x", [-1, 8], "float32"); y = fluid.data("y", [-1, 8], "float32")\n'
    'img = fluid.data("img", [-1, 4, 8, 8], "float32"); vol = fluid.data("vol", [-1, 2, 4, 4, 4], "float32")\n'
    'seq = fluid.data("seq", [-1, 8], "float32", lod_level=1); ids = fluid.data("ids", [-1, 1], "int64")\n'
    'lbl = fluid.data("lbl", [-1, 1], "int64"); sids = fluid.data("sids", [-1, 1], "int64", lod_level=1)\n'
    't3 = fluid.data("t3", [-1, 3, 8], "float32"); lod2 = fluid.data("lod2", [-1, 1], "int64", lod_level=2)\n'
    'prob = fluid.data("prob", [-1, 1], "float32"); box = fluid.data("box", [-1, 4], "float32")\n'
)

CASES = {
    # -- nn: dense, conv, pool, norm
    "fc": "L.fc(x, 4, act='relu')",
    "fc_two_inputs": "L.fc([x, y], 4)",
    "fc_seq": "L.fc(seq, 4)",
    "embedding": "L.embedding(ids, [10, 4])",
    "embedding_sparse_padding": "L.embedding(ids, [10, 4], is_sparse=True, padding_idx=0)",
    "conv2d": "L.conv2d(img, 6, 3, padding=1, act='relu')",
    "conv2d_groups": "L.conv2d(img, 8, 3, groups=2)",
    "conv2d_depthwise": "L.conv2d(img, 4, 3, groups=4, use_cudnn=False)",
    "conv2d_depthwise_then_conv2d": "L.conv2d(L.conv2d(img, 4, 3, groups=4, use_cudnn=False), 2, 1)",
    "conv2d_transpose": "L.conv2d_transpose(img, 3, filter_size=3)",
    "conv2d_transpose_depthwise": "L.conv2d_transpose(img, 4, filter_size=3, groups=4, use_cudnn=False)",
    "conv3d": "L.conv3d(vol, 3, 3)",
    "conv3d_transpose": "L.conv3d_transpose(vol, 3, filter_size=3)",
    "pool2d": "L.pool2d(img, 2, 'max', 2)",
    "pool2d_global": "L.pool2d(img, pool_type='avg', global_pooling=True)",
    "pool3d": "L.pool3d(vol, 2, 'avg', 2)",
    "adaptive_pool2d": "L.adaptive_pool2d(img, 2, 'avg')",
    "adaptive_pool2d_max_index": "L.adaptive_pool2d(img, 2, 'max', require_index=True)",
    "adaptive_pool3d": "L.adaptive_pool3d(vol, 2, 'avg')",
    "batch_norm": "L.batch_norm(img)",
    "batch_norm_act": "L.batch_norm(img, act='relu')",
    "inplace_abn": "L.inplace_abn(img)",
    "instance_norm": "L.instance_norm(img)",
    "layer_norm": "L.layer_norm(x)",
    "group_norm": "L.group_norm(img, 2)",
    "data_norm": "L.data_norm(x)",
    "spectral_norm": "L.spectral_norm(fluid.layers.create_parameter([4, 8], 'float32'), dim=0)",
    "lrn": "L.lrn(img)",
    "l2_normalize": "L.l2_normalize(x, 1)",
    "dropout": "L.dropout(x, 0.5)",
    "prelu": "L.prelu(x, 'channel') if False else L.prelu(img, 'channel')",
    "prelu_all": "L.prelu(x, 'all')",
    "affine_channel": "L.affine_channel(img, L.create_parameter([4], 'float32'), L.create_parameter([4], 'float32'))",
    "bilinear_tensor_product": "L.bilinear_tensor_product(x, y, 3)",
    "row_conv": "L.row_conv(seq, 2)",
    "maxout": "L.maxout(img, 2)",
    "pixel_shuffle": "L.pixel_shuffle(img, 2)",
    "space_to_depth": "L.space_to_depth(img, 2)",
    "shuffle_channel": "L.shuffle_channel(img, 2)",
    "temporal_shift": "L.temporal_shift(img, 2)",
    "deformable_conv": "L.deformable_conv(img, L.conv2d(img, 18, 3, padding=1), L.conv2d(img, 9, 3, padding=1), 2, 3, padding=1)",
    "resize_bilinear": "L.resize_bilinear(img, out_shape=[4, 4])",
    "resize_nearest": "L.resize_nearest(img, scale=2.0)",
    "resize_trilinear": "L.resize_trilinear(vol, out_shape=[2, 2, 2])",
    "image_resize": "L.image_resize(img, out_shape=[4, 4])",
    "image_resize_short": "L.image_resize_short(img, 4)",
    "pad": "L.pad(x, [0, 0, 1, 1])",
    "pad2d": "L.pad2d(img, [1, 1, 1, 1])",
    "pad_constant_like": "L.pad_constant_like(L.fill_constant([3, 9], 'float32', 0.0), L.fill_constant([2, 8], 'float32', 1.0))",
    "crop_tensor": "L.crop_tensor(x, shape=[-1, 4], offsets=[0, 2])",
    "unfold": "L.unfold(img, [2, 2])",
    "grid_sampler": "L.grid_sampler(img, L.affine_grid(fluid.data('theta', [-1, 2, 3], 'float32'), [2, 4, 8, 8]))",
    "im2sequence": "L.im2sequence(img, filter_size=[2, 2], stride=[2, 2])",
    # -- activations and elementwise
    "relu": "L.relu(x)",
    "sigmoid": "L.sigmoid(x)",
    "tanh": "L.tanh(x)",
    "softmax": "L.softmax(x)",
    "log_softmax": "L.log_softmax(x)",
    "elu": "L.elu(x)",
    "relu6": "L.relu6(x)",
    "leaky_relu": "L.leaky_relu(x)",
    "swish": "L.swish(x)",
    "gelu": "L.gelu(x)",
    "hard_swish": "L.hard_swish(x)",
    "hard_sigmoid": "L.hard_sigmoid(x)",
    "mish": "L.mish(x)",
    "selu": "L.selu(x)",
    "softplus": "L.softplus(x)",
    "softsign": "L.softsign(x)",
    "brelu": "L.brelu(x)",
    "soft_relu": "L.soft_relu(x)",
    "stanh": "L.stanh(x)",
    "pow": "L.pow(x, 2.0)",
    "exp": "L.exp(x)",
    "log": "L.log(x)",
    "sqrt": "L.sqrt(x)",
    "square": "L.square(x)",
    "abs": "L.abs(x)",
    "scale": "L.scale(x, 2.0, 1.0)",
    "clip": "L.clip(x, -1.0, 1.0)",
    "clip_by_norm": "L.clip_by_norm(x, 1.0)",
    "elementwise_add": "L.elementwise_add(x, y, act='relu')",
    "elementwise_sub": "L.elementwise_sub(x, y)",
    "elementwise_mul": "L.elementwise_mul(x, y)",
    "elementwise_div": "L.elementwise_div(x, y)",
    "elementwise_max": "L.elementwise_max(x, y)",
    "elementwise_pow": "L.elementwise_pow(x, y)",
    "elementwise_floordiv": "L.elementwise_floordiv(lbl, lbl)",
    "elementwise_mod": "L.elementwise_mod(lbl, lbl)",
    "operators": "x + y * 2.0 - x / y",
    "operator_compare": "x > y",
    "sum": "L.sum([x, y])",
    "sums": "L.sums([x, y])",
    "mean": "L.mean(x)",
    "mul": "L.mul(x, L.transpose(y, [1, 0]))",
    "matmul": "L.matmul(x, y, transpose_y=True)",
    "bmm": "L.bmm(t3, L.transpose(t3, [0, 2, 1]))",
    "addmm": "L.addmm(x, x, L.fill_constant([8, 8], 'float32', 1.0))",
    "dot": "L.dot(x, y)",
    "cross": "L.cross(t3, t3)",
    "kron": "L.kron(x, y)",
    "dist": "L.dist(x, y)",
    "addcmul": "L.addcmul(x, x, y)",
    "reduce_sum": "L.reduce_sum(x, dim=1)",
    "reduce_mean": "L.reduce_mean(x)",
    "reduce_max": "L.reduce_max(x, 1)",
    "reduce_prod": "L.reduce_prod(x)",
    "reduce_all": "L.reduce_all(x > y)",
    "logsumexp": "L.logsumexp(x)",
    "cumsum": "L.cumsum(x, axis=1)",
    "argmax": "L.argmax(x, 1)",
    "argsort": "L.argsort(x)",
    "topk": "L.topk(x, 2)",
    "trace": "L.trace(L.reshape(x, [-1, 2, 4]), 0, 1, 2)",
    "isfinite": "L.isfinite(x)",
    "has_nan": "L.has_nan(x)",
    "allclose": "L.allclose(x, y)",
    "logical_and": "L.logical_and(x > y, x < y)",
    "logical_not": "L.logical_not(x > y)",
    "equal": "L.equal(x, y)",
    "less_than": "L.less_than(x, y)",
    "elementwise_equal": "L.elementwise_equal(x, y)",
    # -- tensor creation and manipulation
    "fill_constant": "L.fill_constant([2, 3], 'float32', 1.0)",
    "fill_constant_batch_size_like": "L.fill_constant_batch_size_like(x, [1, 3], 'float32', 0.0)",
    "zeros": "L.zeros([2], 'int64')",
    "ones_like": "L.ones_like(x)",
    "zeros_like": "L.zeros_like(x)",
    "full_like": "L.full_like(x, 2.0)",
    "full": "L.full([2], 3.0)",
    "eye": "L.eye(3)",
    "range": "L.range(0, 5, 1, 'int64')",
    "arange": "L.arange(0, 5, 1, 'int64')",
    "linspace": "L.linspace(0, 1, 5, 'float32')",
    "assign": "L.assign(x)",
    "assign_numpy": "L.assign(np.ones([2, 2], 'float32'))",
    "cast": "L.cast(x, 'float64')",
    "create_tensor": "L.create_tensor('float32')",
    "create_parameter": "L.create_parameter([2, 3], 'float32')",
    "create_global_var": "L.create_global_var([1], 0.5, 'float32', persistable=True)",
    "concat": "L.concat([x, y], 1)",
    "split": "L.split(x, 2, 1)",
    "split_sections": "L.split(x, [3, 5], 1)",
    "stack": "L.stack([x, y])",
    "unstack": "L.unstack(t3, 1)",
    "reshape": "L.reshape(x, [-1, 2, 4])",
    "reshape_act": "L.reshape(x, [-1, 4], act='relu')",
    "transpose": "L.transpose(img, [0, 2, 3, 1])",
    "flatten": "L.flatten(img)",
    "squeeze": "L.squeeze(L.reshape(x, [-1, 1, 8]), [1])",
    "unsqueeze": "L.unsqueeze(x, [1])",
    "expand": "L.expand(x, [1, 2])",
    "expand_as": "L.expand_as(x, L.concat([x, x], 1))",
    "slice": "L.slice(x, [1], [0], [4])",
    "strided_slice": "L.strided_slice(x, [1], [0], [8], [2])",
    "getitem": "x[:, 1:3]",
    "gather": "L.gather(x, L.reshape(lbl, [-1]))",
    "gather_nd": "L.gather_nd(img, L.cast(L.fill_constant([2, 2], 'int32', 0), 'int32'))",
    "scatter": "L.scatter(x, L.reshape(lbl, [-1]), y)",
    "scatter_nd_add": "L.scatter_nd_add(x, L.fill_constant([1, 1], 'int64', 0), L.fill_constant([1, 8], 'float32', 1.0))",
    "index_select": "L.index_select(x, L.reshape(lbl, [-1]))",
    "index_sample": "L.index_sample(x, lbl)",
    "where": "L.where(x > y)",
    "nonzero": "L.nonzero(x > y)",
    "flip": "L.flip(x, [1])",
    "reverse": "L.reverse(x, 1)",
    "roll": "L.roll(x, 1)",
    "tril": "L.tril(x)",
    "one_hot": "L.one_hot(lbl, 10)",
    "shape": "L.shape(x)",
    "size": "L.size(x)",
    "rank": "L.rank(x)",
    "unique": "L.unique(L.reshape(lbl, [-1]))",
    "multiplex": "L.multiplex([x, y], lbl)",
    "meshgrid": "L.meshgrid([L.reshape(lbl, [-1]), L.reshape(lbl, [-1])])",
    "diag": "L.diag(L.fill_constant([3], 'float32', 1.0))",
    "crop": "L.crop(x, shape=[2, 4])",
    "label_smooth": "L.label_smooth(L.one_hot(lbl, 10), epsilon=0.1)",
    "shard_index": "L.shard_index(lbl, 20, 2, 0)",
    "uniform_random": "L.uniform_random([2, 3])",
    "gaussian_random": "L.gaussian_random([2, 3])",
    "uniform_random_batch_size_like": "L.uniform_random_batch_size_like(x, [1, 3])",
    "randint": "L.randint(0, 5, [2])",
    "randn": "L.randn([2])",
    "randperm": "L.randperm(5)",
    "sampling_id": "L.sampling_id(L.softmax(x))",
    "increment": "L.increment(L.fill_constant([1], 'int64', 0))",
    "autoincreased_step_counter": "L.autoincreased_step_counter()",
    # -- losses and metrics
    "cross_entropy": "L.cross_entropy(L.softmax(x), lbl)",
    "softmax_with_cross_entropy": "L.softmax_with_cross_entropy(x, lbl)",
    "sigmoid_cross_entropy_with_logits": "L.sigmoid_cross_entropy_with_logits(x, y)",
    "square_error_cost": "L.square_error_cost(x, y)",
    "mse_loss": "L.mse_loss(x, y)",
    "log_loss": "L.log_loss(prob, prob)",
    "huber_loss": "L.huber_loss(prob, prob, 1.0)",
    "smooth_l1": "L.smooth_l1(x, y)",
    "kldiv_loss": "L.kldiv_loss(x, y)",
    "margin_rank_loss": "L.margin_rank_loss(prob, prob, prob)",
    "rank_loss": "L.rank_loss(prob, prob, prob)",
    "bpr_loss": "L.bpr_loss(L.softmax(x), lbl)",
    "dice_loss": "L.dice_loss(L.softmax(x), lbl)",
    "center_loss": "L.center_loss(x, lbl, 10, 0.1, fluid.ParamAttr(name='centers'))",
    "teacher_student_sigmoid_loss": "L.teacher_student_sigmoid_loss(prob, prob)",
    "sigmoid_focal_loss": "L.sigmoid_focal_loss(x, L.cast(lbl, 'int32'), L.fill_constant([1], 'int32', 1))",
    "hsigmoid": "L.hsigmoid(x, lbl, 10)",
    "nce": "L.nce(x, lbl, 10)",
    "sampled_softmax_with_cross_entropy": "L.sampled_softmax_with_cross_entropy(x, lbl, 3)",
    "accuracy": "L.accuracy(L.softmax(x), lbl)",
    "auc": "L.auc(L.softmax(x), lbl)",
    "mean_iou": "L.mean_iou(L.cast(lbl, 'int32'), L.cast(lbl, 'int32'), 3)",
    "cos_sim": "L.cos_sim(x, y)",
    "warpctc": "L.warpctc(seq, L.cast(sids, 'int32'))",
    "edit_distance": "L.edit_distance(sids, sids)",
    "ctc_greedy_decoder": "L.ctc_greedy_decoder(seq, 0)",
    "linear_chain_crf": "L.linear_chain_crf(seq, sids)",
    "crf_decoding": "L.crf_decoding(seq, fluid.ParamAttr(name='crfw'), length=None) if L.linear_chain_crf(seq, sids, fluid.ParamAttr(name='crfw')) is not None else None",
    "chunk_eval": "L.chunk_eval(sids, sids, 'IOB', 2)",
    # -- sequences
    "sequence_pool": "L.sequence_pool(seq, 'sum')",
    "sequence_first_step": "L.sequence_first_step(seq)",
    "sequence_last_step": "L.sequence_last_step(seq)",
    "sequence_softmax": "L.sequence_softmax(L.fc(seq, 1))",
    "sequence_conv": "L.sequence_conv(seq, 4, 3)",
    "sequence_expand": "L.sequence_expand(x, seq)",
    "sequence_expand_as": "L.sequence_expand_as(x, seq)",
    "sequence_pad": "L.sequence_pad(seq, L.fill_constant([1], 'float32', 0.0))",
    "sequence_unpad": "L.sequence_unpad(t3, L.reshape(lbl, [-1]))",
    "sequence_reshape": "L.sequence_reshape(seq, 4)",
    "sequence_concat": "L.sequence_concat([seq, seq])",
    "sequence_slice": "L.sequence_slice(seq, L.fill_constant([1, 1], 'int64', 0), L.fill_constant([1, 1], 'int64', 1))",
    "sequence_reverse": "L.sequence_reverse(seq)",
    "sequence_enumerate": "L.sequence_enumerate(sids, 2)",
    "sequence_mask": "L.sequence_mask(L.reshape(lbl, [-1]))",
    "sequence_scatter": "L.sequence_scatter(x, sids, L.cast(L.fc(seq, 1), 'float32'))",
    "lod_reset": "L.lod_reset(x, seq)",
    "lod_append": "L.lod_append(x, [2, 3])",
    "dynamic_lstm": "L.dynamic_lstm(L.fc(seq, 16), 16)",
    "dynamic_lstmp": "L.dynamic_lstmp(L.fc(seq, 16), 16, 3)",
    "dynamic_gru": "L.dynamic_gru(L.fc(seq, 12), 4)",
    "gru_unit": "L.gru_unit(L.fc(x, 12), L.fc(x, 4), 12)",
    "lstm_unit": "L.lstm_unit(x, L.fc(x, 4), L.fc(x, 4))",
    "lstm": "L.lstm(t3, L.fill_constant([1, 3, 4], 'float32', 0.0), L.fill_constant([1, 3, 4], 'float32', 0.0), 3, 4, 1)",
    # -- control flow and arrays
    "array_ops": "a = L.create_array('float32'); i = L.zeros([1], 'int64'); L.array_write(x, i, array=a); L.array_read(a, i); L.array_length(a)",
    "array_write_new": "L.array_write(x, L.zeros([1], 'int64'))",
    "tensor_array_to_tensor": "a = L.array_write(x, L.zeros([1], 'int64')); L.tensor_array_to_tensor(a)",
    "while": (
        "i = L.zeros([1], 'int64'); n = L.fill_constant([1], 'int64', 3); c = L.less_than(i, n); w = L.While(c)\n"
        "with w.block():\n    L.increment(i, in_place=True); L.less_than(i, n, cond=c)"
    ),
    "while_loop": "L.while_loop(lambda i: i < 3, lambda i: [i + 1], [L.zeros([1], 'int64')])",
    "cond": "L.cond(L.reduce_sum(x) > 0.0, lambda: L.scale(x, 2.0), lambda: L.scale(x, 3.0))",
    "case": "L.case([(L.reduce_sum(x) > 0.0, lambda: L.scale(x, 2.0))], lambda: L.scale(x, 3.0))",
    "switch_case": "L.switch_case(L.fill_constant([1], 'int32', 1), {1: lambda: L.scale(x, 2.0), 2: lambda: L.scale(x, 3.0)})",
    "ifelse": (
        "ie = L.IfElse(L.less_than(L.fc(x, 1), L.fill_constant([1], 'float32', 0.0)))\n"
        "with ie.true_block():\n    ie.output(L.scale(ie.input(x), 2.0))\n"
        "with ie.false_block():\n    ie.output(L.scale(ie.input(x), 3.0))\nie()"
    ),
    "switch": (
        "v = L.create_global_var([1], 0.0, 'float32', persistable=True); s = L.fill_constant([1], 'float32', 1.0)\n"
        "with L.Switch() as sw:\n    with sw.case(s < 2.0):\n        L.assign(L.fill_constant([1], 'float32', 1.0), v)\n"
        "    with sw.default():\n        L.assign(L.fill_constant([1], 'float32', 2.0), v)"
    ),
    "static_rnn": (
        "tm = L.transpose(t3, [1, 0, 2]); r = L.StaticRNN()\nwith r.step():\n    w = r.step_input(tm)\n"
        "    m = r.memory(shape=[-1, 4], batch_ref=w)\n    h = L.fc([w, m], 4)\n    r.update_memory(m, h)\n"
        "    r.step_output(h)\nr()"
    ),
    "dynamic_rnn": (
        "d = L.DynamicRNN()\nwith d.block():\n    w = d.step_input(seq)\n    m = d.memory(shape=[4])\n"
        "    h = L.fc([w, m], 4)\n    d.update_memory(m, h)\n    d.output(h)\nd()"
    ),
    "dynamic_rnn_static_input": (
        "d = L.DynamicRNN()\nwith d.block():\n    w = d.step_input(seq)\n    s = d.static_input(x)\n"
        "    m = d.memory(init=y, need_reorder=True)\n    h = L.fc([w, m, s], 8)\n"
        "    d.update_memory(m, h)\n    d.output(h, w)\nd()"
    ),
    "rnn_gru_cell": "L.rnn(L.GRUCell(4), t3)",
    "rnn_lstm_cell": "L.rnn(L.LSTMCell(4), t3)",
    "lod_rank_table": "cf = L.control_flow; t = cf.lod_rank_table(seq); cf.max_sequence_len(t); a = cf.lod_tensor_to_array(seq, t); cf.array_to_lod_tensor(a, t)",
    "reorder_lod_tensor_by_rank": "L.reorder_lod_tensor_by_rank(x, L.control_flow.lod_rank_table(seq))",
    "is_empty": "L.is_empty(x)",
    "Print": "L.Print(x)",
    "beam_search": "L.beam_search(lod2, L.cast(lod2, 'float32'), L.topk(x, 2)[1], L.topk(x, 2)[0], 2, 1)",
    "beam_search_decode": "a = L.array_write(lod2, L.zeros([1], 'int64')); b = L.array_write(L.cast(lod2, 'float32'), L.zeros([1], 'int64')); L.beam_search_decode(a, b, 2, 1)",
    "gather_tree": "L.gather_tree(L.cast(t3, 'int64'), L.cast(t3, 'int64'))",
    # -- detection
    "prior_box": "L.prior_box(img, fluid.data('image', [-1, 3, 32, 32], 'float32'), [4.0])",
    "density_prior_box": "L.density_prior_box(img, fluid.data('image', [-1, 3, 32, 32], 'float32'), [2], [4.0], [1.0])",
    "anchor_generator": "L.anchor_generator(img, [32.0], [1.0], stride=[8.0, 8.0])",
    "iou_similarity": "L.iou_similarity(box, box)",
    "box_coder": "L.box_coder(box, None, box, target_box_var=None) if False else L.box_coder(box, [0.1, 0.1, 0.2, 0.2], box)",
    "box_clip": "L.box_clip(box, fluid.data('im_info', [-1, 3], 'float32'))",
    "multiclass_nms": "L.multiclass_nms(fluid.data('bb', [-1, 5, 4], 'float32'), fluid.data('sc', [-1, 2, 5], 'float32'), 0.1, 10, 5)",
    "yolo_box": "L.yolo_box(fluid.data('yx', [-1, 14, 4, 4], 'float32'), fluid.data('isz', [-1, 2], 'int32'), [10, 13, 16, 30], 2, 0.01, 32)",
    "roi_align": "L.roi_align(img, fluid.data('rois', [-1, 4], 'float32', lod_level=1), 2, 2)",
    "roi_pool": "L.roi_pool(img, fluid.data('rois', [-1, 4], 'float32', lod_level=1), 2, 2)",
    "polygon_box_transform": "L.polygon_box_transform(img)",
    "target_assign": "L.target_assign(fluid.data('gt', [-1, 1, 4], 'float32', lod_level=1), fluid.data('mi', [-1, 3], 'int32'))",
    "bipartite_match": "L.bipartite_match(fluid.data('dm', [-1, 3], 'float32', lod_level=1))",
    "ssd_loss_free": "L.detection_output(fluid.data('loc', [-1, 5, 4], 'float32'), fluid.data('conf', [-1, 5, 3], 'float32'), fluid.data('pb', [5, 4], 'float32'), fluid.data('pv', [5, 4], 'float32'))",
    # -- learning rate schedules
    "exponential_decay": "L.exponential_decay(0.1, 10, 0.5)",
    "piecewise_decay": "L.piecewise_decay([10, 20], [0.1, 0.01, 0.001])",
    "noam_decay": "L.noam_decay(8, 100)",
    "cosine_decay": "L.cosine_decay(0.1, 10, 5)",
    "linear_lr_warmup": "L.linear_lr_warmup(0.1, 5, 0.0, 0.1)",
    "polynomial_decay": "L.polynomial_decay(0.1, 10)",
    "natural_exp_decay": "L.natural_exp_decay(0.1, 10, 0.5)",
    "inverse_time_decay": "L.inverse_time_decay(0.1, 10, 0.5, staircase=True)",
    "polynomial_decay_cycle": "L.polynomial_decay(0.1, 10, cycle=True)",
    # -- nets and contrib
    "nets_simple_img_conv_pool": "nets.simple_img_conv_pool(img, 4, 3, 2, 2, act='relu')",
    "nets_img_conv_group": "nets.img_conv_group(img, [4, 4], 2, conv_padding=1, conv_with_batchnorm=True)",
    "nets_sequence_conv_pool": "nets.sequence_conv_pool(seq, 4, 3)",
    "nets_glu": "nets.glu(x)",
    "nets_scaled_dot_product_attention": "nets.scaled_dot_product_attention(t3, t3, t3, 2)",
    "contrib_fused_elemwise_activation": "fluid.contrib.layers.fused_elemwise_activation(x, y, ['elementwise_add', 'relu'])",
    "contrib_match_matrix_tensor": "fluid.contrib.layers.match_matrix_tensor(seq, seq, 2)",
    "contrib_sequence_topk_avg_pooling": "fluid.contrib.layers.sequence_topk_avg_pooling(seq, fluid.data('row', [-1, 1], 'float32', lod_level=1), fluid.data('col', [-1, 1], 'float32', lod_level=1), [1], 1)",
    "contrib_shuffle_batch": "fluid.contrib.layers.shuffle_batch(x)",
    "contrib_basic_gru": "fluid.contrib.layers.basic_gru(t3, None, 4)",
    "contrib_basic_lstm": "fluid.contrib.layers.basic_lstm(t3, None, None, 4)",
    "contrib_partial_sum": "fluid.contrib.layers.partial_sum([x, y], 0, 4)",
}


def ops_of(program):
    """[block index, op type, {input slot: count}, {output slot: count}] of every op, slots that name none left out."""
    out = []
    for block in program.blocks:
        for op in block.ops:
            ins = {s: len(op.input(s)) for s in op.input_names if op.input(s)}
            outs = {s: len(op.output(s)) for s in op.output_names if op.output(s)}
            out.append([block.idx, op.type, ins, outs])
    return out


def build(fluid, code):
    """(ops, parameter names) of ``code`` run in a fresh program, or (None, error) when it fails."""
    import numpy as np  # noqa: F401 -- the calls may use it

    main, startup = fluid.Program(), fluid.Program()
    env = {"fluid": fluid, "L": fluid.layers, "nets": fluid.nets, "np": np}
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        try:
            exec(INPUTS, env)
            exec(code, env)
        except Exception as e:  # noqa: BLE001 -- the oracle's refusal is recorded as it is
            return None, f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
    return ops_of(main), [p.name for p in main.all_parameters()]


if __name__ == "__main__":
    import paddle.fluid as fluid
    import paddle.fluid.contrib.layers  # noqa: F401 -- fluid.contrib.layers

    path = (
        sys.argv[1]
        if len(sys.argv) > 1
        else os.path.join(os.path.dirname(__file__), "..", "tests", "data", "fluid_program_ops.json")
    )
    record = {"inputs": INPUTS, "cases": {}}
    for name, code in CASES.items():
        ops, params = build(fluid, code)
        if ops is None:
            print(f"{name}: Fluid refuses it: {params}")
            continue
        record["cases"][name] = {"code": code, "ops": ops, "params": params}
    with open(path, "w") as f:
        json.dump(record, f, indent=0, sort_keys=True)
        f.write("\n")
    print(f"{len(record['cases'])} calls recorded in {path}")
