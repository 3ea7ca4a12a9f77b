"""``paddle.fluid.dygraph.learning_rate_scheduler``: the learning-rate schedules of dygraph optimizers
(CosineDecay, NoamDecay, ...). pe runs static graphs: each name of dygraph mode says so in one line."""

from ..unsupported import DYGRAPH, refuse

refuse(
    globals(),
    "paddle.fluid.dygraph.learning_rate_scheduler",
    [
        "CosineDecay",
        "ExponentialDecay",
        "InverseTimeDecay",
        "LambdaDecay",
        "LinearLrWarmup",
        "MultiStepDecay",
        "NaturalExpDecay",
        "NoamDecay",
        "PiecewiseDecay",
        "PolynomialDecay",
        "ReduceLROnPlateau",
        "StepDecay",
    ],
    DYGRAPH,
)
