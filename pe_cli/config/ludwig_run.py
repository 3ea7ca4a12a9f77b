"""A Ludwig config's run keys: its ``trainer`` (``training`` before Ludwig 0.5) and its top-level
``preprocessing`` (the split), read from the model file a run config names and set in the run config
where it does not set them itself (docs/CONFIG.md, "Ludwig's spellings"). What pe cannot run as Ludwig
does is one line at its key."""

import math

from .ludwig_prep import TYPES

RUN_KEYS = ("trainer", "training", "preprocessing", "random_seed")
DOC = "docs/CONFIG.md, 'Ludwig's spellings'"
OPTIMIZERS = {"adam": "Adam", "sgd": "SGD"}
# Ludwig's optimizer keys, as pe's optimizer argument (a value computing the same: None).
OPTIMIZER_KEYS = {
    "adam": {"betas": None, "eps": "epsilon", "weight_decay": 0, "amsgrad": False},
    "sgd": {"momentum": "momentum", "weight_decay": 0, "nesterov": False, "dampening": 0},
}
SPLITS = ("random", "stratify")
VALIDATION = {"validation_field": "combined", "validation_metric": "loss"}  # Ludwig's defaults: what pe watches


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_run_keys(doc):
    """[(run config path, value, model file path)] of a Ludwig config's trainer and split, checked."""
    data = doc.data
    if "trainer" in data and "training" in data:
        raise doc.error(("training",), "trainer and training (its old name) both given; keep trainer", key=True)
    out = []
    key = "trainer" if "trainer" in data else "training"
    trainer = data.get(key) or {}
    if not isinstance(trainer, dict):
        raise doc.error((key,), f"{key} is a mapping", "e.g. trainer: {epochs: 10}")
    out += _trainer(doc, key, trainer)
    prep = data.get("preprocessing") or {}
    if not isinstance(prep, dict):
        raise doc.error(("preprocessing",), "preprocessing is a mapping", "e.g. preprocessing: {split: {...}}")
    out += _split(doc, prep)
    if "random_seed" in data:
        seed = data["random_seed"]
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise doc.error(("random_seed",), f"random_seed is a whole number of at least 0, not {seed!r}")
        out.append((("seed",), seed, ("random_seed",)))
    return out


def _trainer(doc, key, trainer):
    out = []
    for name, value in trainer.items():
        at = (key, name)
        if name in ("epochs", "batch_size", "eval_batch_size"):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise doc.error(at, f"{key}.{name} is a whole number of at least 1 in pe, not {value!r}")
            out.append(({"epochs": ("epochs",)}.get(name, ("data", name)), value, at))
        elif name == "early_stop":
            if not isinstance(value, int) or isinstance(value, bool) or value == 0 or value < -1:
                raise doc.error(at, f"{key}.early_stop is a number of evaluations (or -1: off), not {value!r}")
            if value > 0:  # Ludwig watches the total loss on the validation rows: pe's eval part
                outputs = [o for o in doc.data.get("output_features") or [] if isinstance(o, dict)]
                out.append((("early_stopping",), {"metric": loss_name(outputs), "mode": "min", "patience": value}, at))
        elif name in VALIDATION:
            if value != VALIDATION[name]:
                raise doc.error(at, f"{key}.{name}: pe watches the total loss ({VALIDATION[name]!r}), not {value!r}")
        elif name not in ("learning_rate", "optimizer"):
            raise doc.error(at, f"Ludwig's trainer key '{name}' has no pe equivalent", f"drop it ({DOC})", key=True)
    if "learning_rate" in trainer or "optimizer" in trainer:
        out.append((("optimizer",), _optimizer(doc, key, trainer), (key, "optimizer")))
    return out


def _optimizer(doc, key, trainer):
    """The optimizer a Ludwig trainer means: its type (adam, Ludwig's default) and learning_rate (0.001)."""
    given = trainer.get("optimizer") or {}
    if not isinstance(given, dict):
        raise doc.error((key, "optimizer"), "optimizer is a mapping", "e.g. optimizer: {type: adam}")
    type_ = given.get("type", "adam")
    if type_ not in OPTIMIZERS:
        raise doc.error(
            (key, "optimizer", "type"), f"optimizer type {type_!r}: pe runs Ludwig's adam and sgd as Ludwig does"
        )
    lr = trainer.get("learning_rate", 0.001)
    if not _number(lr) or lr <= 0:
        raise doc.error((key, "learning_rate"), f"learning_rate is a number above 0 in pe, not {lr!r}")
    out = {"type": OPTIMIZERS[type_], "learning_rate": float(lr)}
    for name, value in given.items():
        at = (key, "optimizer", name)
        same = OPTIMIZER_KEYS[type_].get(name, ...)
        if name == "type":
            continue
        if name == "betas":
            if not (isinstance(value, list) and len(value) == 2 and all(_number(b) and 0 <= b < 1 for b in value)):
                raise doc.error(at, f"optimizer.betas is two numbers in [0, 1), not {value!r}")
            out.update(beta1=float(value[0]), beta2=float(value[1]))
        elif isinstance(same, str):
            if not _number(value) or value < 0:
                raise doc.error(at, f"optimizer.{name} is a number of at least 0, not {value!r}")
            out[same] = float(value)
        elif same is ... or value != same:
            raise doc.error(
                at, f"Ludwig's {type_} key {name}: {value!r} is not computed by pe's {OPTIMIZERS[type_]}", key=True
            )
    momentum = out.pop("momentum", 0)
    if momentum:  # torch's SGD with momentum (no dampening) is Fluid's Momentum
        out.update(type="Momentum", momentum=momentum)
    return out


def _split(doc, prep):
    """Ludwig's ``preprocessing.split`` (or its older split_probabilities, force_split, stratify) as
    pe's ``data.split``: a random or stratified split, the parts' fractions."""
    for name in prep:
        if name not in ("split", "split_probabilities", "force_split", "stratify", "sample_ratio") + tuple(TYPES):
            raise doc.error(
                ("preprocessing", name),
                f"Ludwig's preprocessing key '{name}' has no pe equivalent",
                f"drop it ({DOC})",
                key=True,
            )
    if prep.get("sample_ratio", 1) != 1:
        raise doc.error(("preprocessing", "sample_ratio"), "pe trains on every row: sample_ratio 1 only")
    if "split" in prep and set(prep) & {"split_probabilities", "force_split", "stratify"}:
        raise doc.error(("preprocessing", "split"), "split and Ludwig's older split keys both given; keep split")
    if "split" not in prep:
        if "split_probabilities" in prep and prep.get("force_split") is not True:
            raise doc.error(
                ("preprocessing", "split_probabilities"),
                "without force_split: true Ludwig splits by the table's split column when it has one, which pe "
                "does not read",
                "add force_split: true (a random split), or give pe the parts as data.train and data.eval",
            )
        if not ("split_probabilities" in prep or "stratify" in prep):
            return []
        split = {"type": "stratify", "column": prep["stratify"]} if prep.get("stratify") else {"type": "random"}
        split["probabilities"] = prep.get("split_probabilities", [0.7, 0.1, 0.2])
        return _parts(doc, ("preprocessing",), split, {"probabilities": "split_probabilities", "column": "stratify"})
    split = prep["split"]
    if not isinstance(split, dict):
        raise doc.error(("preprocessing", "split"), "split is a mapping", "e.g. split: {type: random}")
    return _parts(doc, ("preprocessing", "split"), split, {})


def _parts(doc, at, split, names):
    type_ = split.get("type", "random")
    if type_ not in SPLITS:
        raise doc.error(
            at + ("type",) if "type" in split else at,
            f"Ludwig's split type {type_!r}: pe splits data.train at random (random, stratify) only",
            "give pe the parts as data.train and data.eval sources",
        )
    for name in split:
        if name not in ("type", "probabilities") + (("column",) if type_ == "stratify" else ()):
            raise doc.error(at + (name,), f"a {type_} split takes no '{name}' in pe", key=True)
    probs = split.get("probabilities", [0.7, 0.1, 0.2])
    p_at = at + (names.get("probabilities", "probabilities"),)
    if not (isinstance(probs, list) and len(probs) == 3 and all(_number(p) and 0 <= p <= 1 for p in probs)):
        raise doc.error(p_at, f"probabilities are the train, validation and test fractions, not {probs!r}")
    if abs(sum(probs) - 1) > 1e-6 or probs[0] <= 0:
        raise doc.error(p_at, f"the probabilities {probs} sum to {sum(probs):g}, not 1 (or train gets none)")
    out = {part: float(p) for part, p in zip(("eval", "test"), probs[1:]) if p > 0}  # pe: a part or none
    if type_ == "stratify":
        column = split.get("column")
        if not isinstance(column, str):
            raise doc.error(at + (names.get("column", "column"),), "a stratify split names its column")
        out["stratify"] = column
    return [(("data", "split"), out, at)]


def loss_name(outputs):
    """The model's loss, as pe names it, of its translated ``output_features`` (early_stopping's metric)."""
    if len(outputs) != 1:
        return "loss"
    out = outputs[0]
    name = out.get("name", out.get("column"))
    weight = (out.get("loss") or {}).get("weight", 1) if isinstance(out.get("loss"), dict) else 1
    return f"{name}_weighted" if weight != 1 else f"{name}_loss"


__all__ = ["RUN_KEYS", "check_run_keys", "loss_name"]
