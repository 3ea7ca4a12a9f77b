"""``fluid.dygraph.nn``'s loss classes of Fluid 1.8, BCELoss and NLLLoss, with its constructor parameters:
each call appends Fluid's op (bce_loss, nll_loss) and the weighting and reduction Fluid's class appends.
They hold no parameters, so they build in a static program and, inside ``fluid.dygraph.guard()``, run as
their ops run there (eagerly, pe_cli/fluid/dygraph/eager.py), as Fluid's op tests call them."""

from ...framework.variable import Variable
from ...layers.checks import check_variable_and_dtype
from ...layers.elementwise import elementwise_mul
from ...layers.manipulation import reshape
from ...layers.reduction import reduce_mean, reduce_sum
from .layers import Layer

__all__ = ["BCELoss", "NLLLoss"]

_REDUCTIONS = ("sum", "mean", "none")


def _reduced(out, reduction):
    if reduction == "sum":
        return reduce_sum(out)
    return reduce_mean(out) if reduction == "mean" else out


class BCELoss(Layer):
    """The binary cross-entropy of probabilities ``input`` against ``label`` (the bce_loss op), times
    ``weight`` (a Variable, broadcast from the last dims), reduced by ``reduction``."""

    def __init__(self, weight=None, reduction="mean"):
        if reduction not in _REDUCTIONS:
            raise ValueError(
                f"The value of 'reduction' in bce_loss should be 'sum', 'mean' or 'none', but "
                f"received {reduction}, which is not allowed."
            )
        super().__init__()
        self.weight, self.reduction = weight, reduction

    def forward(self, input, label):
        check_variable_and_dtype(input, "input", ("float32", "float64"), "bce_loss")
        check_variable_and_dtype(label, "label", ("float32", "float64"), "bce_loss")
        out = self._helper.create_variable_for_type_inference(input.dtype)
        self._helper.append_op("bce_loss", {"X": [input], "Label": [label]}, {"Out": [out]})
        if self.weight is not None:
            if not isinstance(self.weight, Variable):
                raise ValueError("The weight is not a Variable, please convert to Variable.")
            out = elementwise_mul(out, self.weight, axis=-1)
        return _reduced(out, self.reduction)


class NLLLoss(Layer):
    """The negative log-likelihood of log-probabilities ``input`` [N, C, ...] at the classes ``label``
    [N, ...] (the nll_loss op; inputs of 3 or more than 4 dims reshaped to 4 as Fluid's class does)."""

    def __init__(self, weight=None, reduction="mean", ignore_index=-100):
        super().__init__()
        self.weight, self.reduction, self.ignore_index = weight, reduction, ignore_index

    def forward(self, input, label):
        check_variable_and_dtype(input, "input", ("float32", "float64"), "nll_loss")
        check_variable_and_dtype(label, "label", ("int64",), "nll_loss")
        if self.reduction not in _REDUCTIONS:
            raise ValueError(
                f"The value of 'reduction' in nll_loss should be 'sum', 'mean' or 'none', but "
                f"received {self.reduction}, which is not allowed."
            )
        shape = list(input.shape)
        if len(shape) < 2:
            raise ValueError(f"Expected 2 or more dimensions (got {len(shape)})")
        reshaped = len(shape) not in (2, 4)
        if reshaped:
            input = reshape(input, [shape[0], shape[1], 1, -1])
            label = reshape(label, [shape[0], 1, -1])
        inputs = {"X": [input], "Label": [label]}
        if isinstance(self.weight, Variable):
            inputs["Weight"] = [self.weight]
        out = self._helper.create_variable_for_type_inference(input.dtype)
        total = self._helper.create_variable_for_type_inference(input.dtype)
        self._helper.append_op(
            "nll_loss",
            inputs,
            {"Out": [out], "Total_weight": [total]},
            {"reduction": self.reduction, "ignore_index": self.ignore_index},
        )
        if reshaped and self.reduction == "none":
            out = reshape(out, [shape[0]] + shape[2:])
        return out
