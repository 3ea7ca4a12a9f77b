"""Watching an evaluation metric: ``checkpoint.keep_best`` keeps the checkpoint where it was best as
``ckpt/best``; ``early_stopping`` stops a run once it has not improved for ``patience`` evaluations.
Both follow the metric's mean over data.eval, as each evaluation reports it, and their state goes
into every checkpoint, so a resumed run watches exactly as one run straight through would."""

from .split import has_part


class Watch:
    def __init__(self, metric, mode, min_delta=0.0, patience=None, state=None):
        self.metric, self.mode, self.min_delta, self.patience = metric, mode, min_delta, patience
        state = state or {}
        if (state.get("metric", metric), state.get("mode", mode)) != (metric, mode):
            state = {}  # a resume watching another metric (or way): its best starts afresh
        self.best = state.get("best")
        self.best_step = state.get("best_step")
        self.bad = state.get("bad", 0)  # evaluations since the last improvement

    def update(self, means, step):
        """Takes an evaluation's means; True when the metric improved (or is the first)."""
        value = means[self.metric]
        better = self.best is None or (
            value > self.best + self.min_delta if self.mode == "max" else value < self.best - self.min_delta
        )
        if better:
            self.best, self.best_step, self.bad = value, step, 0
        else:
            self.bad += 1
        return better

    @property
    def exhausted(self):
        return self.patience is not None and self.bad >= self.patience

    def reason(self):
        return (
            f"early stopping: {self.metric} did not improve by more than {self.min_delta:g} for "
            f"{self.bad} evaluations (best {self.best:.6g} at step {self.best_step})"
        )

    def state(self):
        return {
            "metric": self.metric,
            "mode": self.mode,
            "best": self.best,
            "best_step": self.best_step,
            "bad": self.bad,
        }


def watches(cfg, saved=None):
    """(keep_best Watch or None, early_stopping Watch or None) of a run config; ``saved`` is the
    trainer state's ``watch`` entry when resuming."""
    saved = saved or {}
    best = cfg.data["checkpoint"]["keep_best"]
    early = cfg.data["early_stopping"]
    return (
        Watch(best["metric"], best["mode"], state=saved.get("best")) if best["metric"] else None,
        Watch(early["metric"], early["mode"], early["min_delta"], early["patience"], saved.get("early"))
        if early["metric"]
        else None,
    )


def check_watches(cfg):
    """Refuses, before anything runs, a watched metric that no evaluation reports."""
    for key in (("checkpoint", "keep_best", "metric"), ("early_stopping", "metric")):
        section = cfg.data
        for part in key[:-1]:
            section = section[part]
        metric = section[key[-1]]
        if metric is None:
            continue
        if not has_part(cfg, "eval"):
            raise cfg.doc.error(
                key, f"'{metric}' is watched but there is no data.eval to evaluate it on", "add a data.eval source"
            )
        if metric not in cfg.eval_fetches:
            raise cfg.doc.error(
                key,
                f"'{metric}' is not an evaluation fetch",
                f"use one of {', '.join(cfg.eval_fetches)} (eval.fetches)",
            )
