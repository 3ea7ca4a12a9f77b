"""Watching an evaluation metric: ``checkpoint.keep_best`` keeps the checkpoint where it was best as
``ckpt/best``; ``early_stopping`` stops a run once it has not improved for ``patience`` evaluations.
Both follow a number each evaluation reports: an eval fetch's mean over data.eval, or an output's
RMSE, MAE, R² (in its units) or accuracy (predmetrics.unit_metric_names); better is lower or higher as
``mode`` says, or as the metric is (metric_modes). Their state goes into every checkpoint, so a
resumed run watches exactly as one run straight through would; keep_best's keeps the best
evaluation's numbers, which pe train's summary reports."""

import math

from ..ops.registry import with_trait
from .build import layer_refs, split_feeds
from .predmetrics import unit_metric_names
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
        self.evaluation = state.get("evaluation")  # the best evaluation's numbers (keep_best's)

    def update(self, means, step, evaluation=None):
        """Takes an evaluation's numbers; True when the metric improved (or is the first). A number the
        evaluation could not compute (an R² of constant labels) is no improvement."""
        value = means.get(self.metric)
        if value is None or not math.isfinite(value):
            better = False
        else:
            better = self.best is None or (
                value > self.best + self.min_delta if self.mode == "max" else value < self.best - self.min_delta
            )
        if better:
            self.best, self.best_step, self.bad, self.evaluation = value, step, 0, evaluation
        else:
            self.bad += 1
        return better

    @property
    def exhausted(self):
        return self.patience is not None and self.bad >= self.patience

    def reason(self):
        best = "no value" if self.best is None else f"best {self.best:.6g} at step {self.best_step}"
        return (
            f"early stopping: {self.metric} did not improve by more than {self.min_delta:g} for "
            f"{self.bad} evaluations ({best})"
        )

    def state(self):
        return {
            "metric": self.metric,
            "mode": self.mode,
            "best": self.best,
            "best_step": self.best_step,
            "bad": self.bad,
            "evaluation": self.evaluation,
        }


WATCHED = (("checkpoint", "keep_best"), ("early_stopping",))


def _section(cfg, key):
    section = cfg.data
    for part in key:
        section = section[part]
    return section


def watches(cfg, saved=None):
    """(keep_best Watch or None, early_stopping Watch or None) of a run config; ``saved`` is the
    trainer state's ``watch`` entry when resuming."""
    saved = saved or {}
    modes = metric_modes(cfg)
    best, early = (_section(cfg, key) for key in WATCHED)
    return (
        Watch(best["metric"], best["mode"] or modes[best["metric"]], state=saved.get("best"))
        if best["metric"]
        else None,
        Watch(
            early["metric"],
            early["mode"] or modes[early["metric"]],
            early["min_delta"],
            early["patience"],
            saved.get("early"),
        )
        if early["metric"]
        else None,
    )


def metric_modes(cfg):
    """{name: "max", "min" or None (pe cannot tell)} of every number an evaluation reports: the eval
    fetches (the model's loss and the layers it sums from the labels, each output's loss: min; a metric
    layer's first output, an accuracy or AUC: max), then each output's numbers in its units
    (predmetrics.unit_metric_names)."""
    spec = cfg.model
    losses = _losses(spec)
    metrics = set(with_trait("metric"))
    modes = {}
    for name in cfg.eval_fetches:
        layer, _, index = name.partition("[")
        if layer in losses:
            modes[name] = "min"
        elif getattr(spec.layer(layer), "type", None) in metrics and index in ("", "0]"):
            modes[name] = "max"
        else:
            modes[name] = None
    for name, mode in unit_metric_names(cfg).items():
        modes.setdefault(name, mode)
    return modes


def _losses(spec):
    """The model's loss and the layers it is computed from that read a label feed (each output's
    error, its mean, its weighted share): all of them lower is better."""
    _, labels = split_feeds(spec)
    tainted = set(labels)
    for layer in spec.layers:
        if any(ref in tainted for _, ref in layer_refs(layer)):
            tainted.add(layer.name)
    found, todo = set(), [spec.loss]
    while todo:
        name = todo.pop()
        layer = spec.layer(name)
        if name in found or layer is None:
            continue
        found.add(name)
        todo += [ref.split("[")[0] for _, ref in layer_refs(layer) if ref.split("[")[0] in tainted - set(labels)]
    return found


def check_watches(cfg):
    """Refuses, before anything runs, a watched metric that no evaluation reports, or one whose better
    way (max or min) neither its mode nor the metric says."""
    modes = metric_modes(cfg) if any(_section(cfg, key)["metric"] for key in WATCHED) else {}
    for key in WATCHED:
        metric = _section(cfg, key)["metric"]
        if metric is None:
            continue
        if not has_part(cfg, "eval"):
            raise cfg.doc.error(
                key + ("metric",),
                f"'{metric}' is watched but there is no data.eval to evaluate it on",
                "add a data.eval source",
            )
        if metric not in modes:
            raise cfg.doc.error(
                key + ("metric",),
                f"'{metric}' is not an evaluation fetch nor a number each evaluation reports",
                f"use one of {', '.join(modes)}",
            )
        if _section(cfg, key)["mode"] is None and modes[metric] is None:
            raise cfg.doc.error(
                key + ("metric",),
                f"pe cannot tell whether a higher or a lower '{metric}' is better",
                f"add {'.'.join(key)}.mode: max (higher is better) or min",
            )
