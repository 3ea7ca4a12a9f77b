"""Fluid 1.8's ``layers.learning_rate_scheduler``: the learning-rate schedules (pe_cli/layers/lr_schedule.py)."""
from .lr_schedule import (LR_COUNTER_NAME, autoincreased_step_counter, cosine_decay,  # noqa: F401
                          exponential_decay, inverse_time_decay, linear_lr_warmup, natural_exp_decay, noam_decay,
                          piecewise_decay, polynomial_decay, switch_schedule)

__all__ = ["exponential_decay", "natural_exp_decay", "inverse_time_decay", "polynomial_decay",
           "piecewise_decay", "cosine_decay", "noam_decay", "linear_lr_warmup", "switch_schedule",
           "autoincreased_step_counter"]
