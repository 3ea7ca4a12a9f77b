"""What some layer functions take, for the checks a model file gets at build time
(pe_cli/run/build_checks.py): which are regression losses (their prediction and label arguments),
which pair their inputs row by row, which keep their input's values, which give probabilities.

- ``REGRESSION_LOSSES``: layer function -> (the prediction's argument, the label's).
- ``SAME_ROWS``: layers whose variable inputs must hold the same rows (one per sample, or one per
  token of a sequence).
- ``KEEP_VALUES``: layers whose output holds their input's values, rearranged or scaled.
- ``PROBABILITIES``: layers (or an fc's ``act``) whose output is probabilities; ``TAKES_PROBABILITIES``:
  losses whose input must be probabilities (not logits).
"""

REGRESSION_LOSSES = {
    "square_error_cost": ("input", "label"),
    "mse_loss": ("input", "label"),
    "huber_loss": ("input", "label"),
    "smooth_l1": ("x", "y"),
}
# layers whose variable inputs must hold the same rows (one per sample, or one per token)
SAME_ROWS = frozenset(
    {
        "concat",
        "sums",
        "elementwise_add",
        "elementwise_sub",
        "elementwise_mul",
        "elementwise_div",
        "elementwise_max",
        "elementwise_min",
        "elementwise_pow",
        "fc",
        "softmax_with_cross_entropy",
        "cross_entropy",
        "accuracy",
        "sigmoid_cross_entropy_with_logits",
        "auc",
        "bpr_loss",
        "rank_loss",
        "margin_rank_loss",
        "log_loss",
        "kldiv_loss",
        *REGRESSION_LOSSES,
    }
)
KEEP_VALUES = frozenset(
    {"dropout", "reshape", "reshape2", "squeeze", "squeeze2", "unsqueeze", "unsqueeze2", "flatten", "scale", "cast"}
)
PROBABILITIES = frozenset({"softmax", "log_softmax", "sigmoid"})
TAKES_PROBABILITIES = frozenset({"cross_entropy"})


__all__ = ["KEEP_VALUES", "PROBABILITIES", "REGRESSION_LOSSES", "SAME_ROWS", "TAKES_PROBABILITIES"]
