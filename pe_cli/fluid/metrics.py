"""``paddle.fluid.metrics``: the Python metric accumulators are not in pe yet (each name raises);
the in-graph ``fluid.layers.accuracy`` is."""
from .unsupported import unsupported

__all__ = ["MetricBase", "CompositeMetric", "Precision", "Recall", "Accuracy", "ChunkEvaluator",
           "EditDistance", "DetectionMAP", "Auc"]
for _name in __all__:
    globals()[_name] = unsupported(f"fluid.metrics.{_name}")
