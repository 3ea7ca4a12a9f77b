"""What turns a forward program into a training one: autodiff (backward.py), the optimizers
(optimizer.py: the base class, SGD and the momentum family; optimizer_adaptive.py: per-parameter
adaptive rates, Adam to Lamb), weight averaging (averaging.py: ModelAverage, ExponentialMovingAverage,
Lookahead), gradient clipping (clip.py), weight decay (regularizer.py), and how parameters are
made (initializer.py, param_attr.py).

Import the modules themselves: this package imports nothing, so that ``layers`` may use the
initializers and parameter attributes while the averaging optimizers build ops through ``layers``.
"""
