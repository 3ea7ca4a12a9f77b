"""The input slots pe declares for an op that the op's own proto in a release lacks: Paddle 2.x's slots pe gives
its Fluid ops (gather's Axis, the reductions' AxisTensor), pe's own for an attribute a Variable gives (dropout's
DropoutProbTensor, unpool's OutputSizeTensorList), and Fluid's that Paddle 2.6 dropped. Fluid and Paddle write
every input slot their proto declares, empty ones too; the model writer (framework/fluid_model_write.py) writes
these only where they hold a variable, so a program that uses none of them is written as the release writes it.
tests/io/test_proto_slots.py checks the tables against the two releases' op inventories (tests/data)."""

# op type -> its slots Fluid 1.8.5's proto lacks
NOT_IN_FLUID18 = {
    "adam": ("EpsilonTensor",),
    "allclose": ("Atol", "Rtol"),
    "cumsum": ("AxisTensor",),
    "dropout": ("DropoutProbTensor",),
    "fake_quantize_range_abs_max": ("InScales",),
    "gather": ("Axis",),
    "generate_proposal_labels": ("MaxOverlap",),
    "lamb": ("Beta1Tensor", "Beta2Tensor"),
    "momentum": ("MasterParam",),
    "reduce_all": ("AxisTensor", "AxisTensorList"),
    "reduce_any": ("AxisTensor", "AxisTensorList"),
    "reduce_max": ("AxisTensor", "AxisTensorList"),
    "reduce_mean": ("AxisTensor", "AxisTensorList"),
    "reduce_min": ("AxisTensor", "AxisTensorList"),
    "reduce_prod": ("AxisTensor", "AxisTensorList"),
    "reduce_sum": ("AxisTensor", "AxisTensorList"),
    "roi_align": ("RoisNum",),
    "roi_pool": ("RoisNum",),
    "roll": ("ShiftsTensor",),
    "unpool": ("OutputSizeTensorList",),
}

# op type -> its slots Paddle 2.6.2's proto lacks
NOT_IN_PADDLE26 = {
    "broadcast": ("X",),
    "conv2d": ("Bias", "ResidualData"),
    "conv3d": ("ResidualData",),
    "cudnn_lstm": ("Cache",),
    "cumsum": ("AxisTensor",),
    "depthwise_conv2d": ("Bias", "ResidualData"),
    "dropout": ("DropoutProbTensor",),
    "fake_quantize_range_abs_max": ("InScales",),
    "fused_adam": ("Beta1Pow", "Beta2Pow", "Grad", "Moment1", "Moment2", "Param"),
    "lamb": ("Beta1Tensor", "Beta2Tensor"),
    "pylayer": ("Reads",),
    "reduce_max": ("AxisTensor", "AxisTensorList"),
    "reduce_mean": ("AxisTensor", "AxisTensorList"),
    "reduce_min": ("AxisTensor", "AxisTensorList"),
    "reduce_prod": ("AxisTensor", "AxisTensorList"),
    "reduce_sum": ("AxisTensor", "AxisTensorList"),
    "roi_align": ("RoisLod",),
    "roi_pool": ("RoisLod",),
    "unpool": ("OutputSizeTensorList",),
}
