"""What the fusion passes (pe_cli/compiler/passes/fuse_*.py, auto_fusion.py) look for and make: the op
types by name, and the rules about them that need no op definition. The families that register the
fused ops (fused.py, fused_gemm.py, fused_optimizer.py, attention.py, sequence_fused.py) take their
names from here, so that loading the passes loads no op family: a family loads through the registry
when a program has its ops."""

from ..base.activations import TABLE


def grad_type(type):
    """The type of ``type``'s gradient op."""
    return type + "_grad"


# -- fused_elemwise_activation (the fuse_elewise_add_act_ops pass) ----------------------------------
# activations the fused op takes: those with a gradient and no attributes of their own
FUSABLE_ACTIVATIONS = tuple(sorted(row.name for row in TABLE if not row.params and row.derivative is not None))
ACT_READS = {row.name: row.reads for row in TABLE if row.name in FUSABLE_ACTIVATIONS}
ADD = "elementwise_add"
EXPAND = "expand"  # (an expand into a forward-only fused add folds into its broadcast)
FUSED_ADD_ACT = "fused_elemwise_activation"
BINARY_FUNCTORS = ("elementwise_add", "elementwise_mul")


def reads_intermediate(functor_list):
    """True when the gradient of the fused op with this ``functor_list`` reads IntermediateOut: its
    activation's gradient reads the activation's input (or, [binary, unary], always: the binary op's Y)."""
    unary = functor_list[0]
    return unary in BINARY_FUNCTORS or ACT_READS.get(unary) == "X"


# -- fused_batch_norm_act (the fuse_bn_act_ops pass) ------------------------------------------------
BATCH_NORM = "batch_norm"
FUSED_BN_ACT = "fused_batch_norm_act"
BN_ACTIVATIONS = tuple(name for name in FUSABLE_ACTIVATIONS if ACT_READS[name] == "Out")

# -- relu + depthwise_conv2d (the fuse_relu_depthwise_conv pass) ------------------------------------
RELU = "relu"
DEPTHWISE_CONV = "depthwise_conv2d"
RELU_FIRST = "fuse_relu_before_depthwise_conv"
# its grad ops: Fluid's one (both gradients), then its halves (pe's earlier programs); the first two write Input@GRAD
DEPTHWISE_GRADS = (DEPTHWISE_CONV + "_grad", DEPTHWISE_CONV + "_grad_input", DEPTHWISE_CONV + "_grad_filter")

# -- fusion_group (the enable_auto_fusion pass) -----------------------------------------------------
FUSION_GROUP = "fusion_group"

# -- fused_gemm_epilogue (the fuse_gemm_epilogue pass) ----------------------------------------------
FUSED_GEMM = "fused_gemm_epilogue"
MUL = "mul"
MUL_GRADS = ("mul_grad",)  # mul's gradient ops (one: X@GRAD and Y@GRAD, where each is wanted)

# -- scaled_dot_product_attention (the fuse_attention pass) -----------------------------------------
SDPA = "scaled_dot_product_attention"
SDPA_GRAD = SDPA + "_grad"
# what the pass looks for: the heads' transposes, the queries' scale, the two products (Paddle 2's
# and Fluid 1's), the mask's add, softmax; their gradient ops
CHAIN = {
    "heads": "transpose2",
    "scale": "scale",
    "products": ("matmul_v2", "matmul"),
    "mask": "elementwise_add",
    "weights": "softmax",
}
CHAIN_GRADS = {
    "heads": "transpose2_grad",
    "product": "matmul_grad",
    "mask": "elementwise_add_grad",
    "weights": "softmax_grad",
    "scale": "scale",
}

# -- fused_embedding_seq_pool (the fuse_embedding_seq_pool pass): what it fuses and makes -----------
LOOKUP_TABLE, SEQUENCE_POOL, FUSED_EMBEDDING_SEQ_POOL = "lookup_table", "sequence_pool", "fused_embedding_seq_pool"

# -- fused_sgd, fused_momentum, fused_adam (the fuse_all_optimizer_ops pass) ------------------------
FUSABLE_OPTIMIZERS = ("sgd", "momentum", "adam")  # Fluid fuses these three
SHARED = "LearningRate"  # the one input all the fused updates share
# adam's optional one-value tensors that replace its beta and epsilon attributes: an op given them is not fused
UNFUSED_INPUTS = ("Beta1Tensor", "Beta2Tensor", "EpsilonTensor")


def fused_type(type):
    """The fused op of update op ``type``."""
    return "fused_" + type


def per_param_slots(opdef):
    """(input slots, output slots) of an update op (its definition ``opdef``) that are per parameter:
    all but LearningRate (and the UNFUSED_INPUTS)."""
    return (
        [s.name for s in opdef.inputs if s.name != SHARED and s.name not in UNFUSED_INPUTS],
        [s.name for s in opdef.outputs],
    )
