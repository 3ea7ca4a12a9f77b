"""Mistakes of a model file that the shapes show before any step runs, each refused at the layer's
line with the fix (run/build.py calls ``check_layer`` with a layer's built arguments, just before
its layer function). The Python API keeps Fluid's behaviour (a broadcast, a warning); a model file,
whose author cannot have meant it, is told at build time:

- **a regression head of the wrong width**: a regression loss (square_error_cost, mse_loss,
  huber_loss, smooth_l1) whose prediction has another width than its label (an fc of size 3
  against a 1-column target would broadcast into a [N, 3] loss and fail after training);
- **sequences meeting samples**: a layer that takes one row per token of a sequence feed (a text
  feed's ids embedded, an fc over them) beside one row per sample (a label, a numeric feed) in a
  concat, an elementwise op, a loss or a metric; the fix is to pool the tokens (sequence_pool);
- **probabilities expected, logits given**: ``cross_entropy`` over an fc without ``act: softmax``.
"""

from ..config.resolved import Ref
from ..layers.layer_roles import KEEP_VALUES, PROBABILITIES, REGRESSION_LOSSES, SAME_ROWS, TAKES_PROBABILITIES


def _fn_name(layer):
    return getattr(layer.fn, "__name__", layer.type)


def _refs(layer, kwargs):
    """[(argument, name as written, Variable)] of the layer's variable arguments."""
    out = []
    for key, value in layer.kwargs.items():
        refs = value if isinstance(value, list) else [value]
        got = kwargs.get(key)
        got = got if isinstance(got, (list, tuple)) else [got]
        for ref, var in zip(refs, got):
            if isinstance(ref, Ref) and hasattr(var, "shape"):
                out.append((key, ref.text, var))
    return out


def check_layer(spec, layer, kwargs):
    """Raises the model file's ConfigError at ``layer`` for the mistakes above."""
    name = _fn_name(layer)
    if name in REGRESSION_LOSSES:
        _regression_width(spec, layer, kwargs, *REGRESSION_LOSSES[name])
    if name in SAME_ROWS:
        _sequences_meet_samples(spec, layer, kwargs)
    if name in TAKES_PROBABILITIES:
        _probabilities_in(spec, layer)


def _regression_width(spec, layer, kwargs, pred_arg, label_arg):
    pred, label = kwargs.get(pred_arg), kwargs.get(label_arg)
    if not (hasattr(pred, "shape") and hasattr(label, "shape")) or not pred.shape or not label.shape:
        return
    p, t = pred.shape[-1], label.shape[-1]
    if p == t or p < 0 or t < 0 or len(pred.shape) != len(label.shape):
        return
    source = layer.kwargs[pred_arg].text if isinstance(layer.kwargs.get(pred_arg), Ref) else pred_arg
    head = spec.layer(source.split("[", 1)[0])
    fix = f"give '{source}' {t} output{'s' if t != 1 else ''}"
    if head is not None and _fn_name(head) in ("fc", "Linear"):
        key = "size" if _fn_name(head) == "fc" else "out_features"
        fix = f"write {key}: {t} in '{source}' ({head.location})"
    raise layer.doc.error(
        layer.path,
        f"the prediction '{source}' has {p} value{'s' if p != 1 else ''} per sample "
        f"but the target '{layer.kwargs[label_arg].text}' has {t}: a regression's prediction "
        f"has its target's width (they would broadcast into a [N, {max(p, t)}] loss)",
        fix,
    )


def _sequence_source(spec, name):
    """The chain of names from the sequence feed to ``name`` (feed first), through the layers'
    first variable argument."""
    chain, seen = [], set()
    while name is not None and name not in seen:
        seen.add(name)
        chain.append(name)
        if name in spec.feeds:
            return chain[::-1]
        layer = spec.layer(name)
        if layer is None:
            return None
        name = next(
            (
                v.name if isinstance(v, Ref) else None
                for v in (layer.kwargs.get(a) for a in ("input", "x", "inputs"))
                if isinstance(v, Ref)
            ),
            None,
        )
    return None


def _sequences_meet_samples(spec, layer, kwargs):
    refs = _refs(layer, kwargs)
    tokens = [(k, n, v) for k, n, v in refs if getattr(v, "lod_level", 0) > 0]
    samples = [(k, n, v) for k, n, v in refs if getattr(v, "lod_level", 0) == 0 and v.shape and v.shape[0] == -1]
    if not tokens or not samples:
        return
    _, name, _ = tokens[0]
    chain = _sequence_source(spec, name.split("[", 1)[0]) or [name]
    feed = spec.feeds.get(chain[0])
    kind = "text" if feed is not None and feed.path[:2] == ("data", "preprocessing") else "sequence"
    via = f" (through {', '.join(repr(c) for c in chain[1:])})" if len(chain) > 1 else ""
    pool_at = chain[1] if len(chain) > 1 else chain[0]
    before = chain[2] if len(chain) > 2 else layer.name
    raise layer.doc.error(
        layer.path,
        f"'{name}' holds one row per token of the {kind} feed '{chain[0]}'{via}, but "
        f"'{samples[0][1]}' holds one row per sample, so '{layer.name}' cannot pair them",
        f"pool the tokens first: add '- {pool_at}_pooled: {{type: sequence_pool, input: {pool_at}, "
        f"pool_type: average}}' after '{pool_at}' and give it to '{before}' in place of '{pool_at}'",
    )


def _probabilities_in(spec, layer):
    ref = layer.kwargs.get("input")
    name = ref.name if isinstance(ref, Ref) else None
    while name is not None:
        source = spec.layer(name)
        if source is None:
            return
        fn = _fn_name(source)
        if fn in PROBABILITIES:
            return
        if fn in ("fc", "Linear"):
            if source.args.get("act") in PROBABILITIES:
                return
            raise layer.doc.error(
                layer.path,
                f"{_fn_name(layer)} takes probabilities, but '{name}' is an {fn}'s raw scores (logits: no softmax)",
                f"use {{type: softmax_with_cross_entropy, logits: {name}, label: "
                f"{layer.kwargs['label'].text}}}, or give '{name}' act: softmax",
            )
        if fn not in KEEP_VALUES:
            return
        nxt = next((source.kwargs.get(a) for a in ("input", "x") if isinstance(source.kwargs.get(a), Ref)), None)
        name = nxt.name if nxt is not None else None


__all__ = ["check_layer"]
