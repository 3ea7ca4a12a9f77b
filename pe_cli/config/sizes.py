"""Sizes from the data: the layer sizes the fitted preprocessing (``preprocessing.json``) decides,
filled where a model file writes ``auto`` and checked where it writes a number, before any program
is built (docs/CONFIG.md, "Sizes from the data").

Two rules, each traced through the layer graph as the model file writes it:

- **ids**: an ``embedding``'s rows (``size: [auto, 16]``; paddle.nn ``Embedding``'s
  ``num_embeddings``) are the vocabulary size of the ``category`` or ``text`` feed its ids come
  from (directly, or through layers that keep ids: reshape, squeeze, cast, ...). A number must be at
  least that many rows.
- **classes**: the output size of an ``fc`` (``size: auto``; paddle.nn ``Linear``'s
  ``out_features``) is the number of classes of the ``label`` (or ``category``) feed when the fc's
  output is the logits (or, through layers that keep the class axis: softmax, dropout, reshape,
  ..., the probabilities) of a ``softmax_with_cross_entropy``, ``cross_entropy`` or ``accuracy``
  whose label is that feed. A number must equal it.

``auto`` anywhere else, or where the rules give two sizes, is an error at its key.

A one-hot category feed (``encoding: one_hot``) that data.preprocessing declares has the shape
``[auto]`` until its vocabularies are fitted: its width, the vocabulary sizes summed, is filled
here too (``fill_feed_widths``); a model file that declares the feed must give that width.
"""

from ..layers.data_sizes import CLASS_LAYERS, KEEP_CLASSES, KEEP_IDS, SLOTS, SOURCE_ARGUMENTS

AUTO = "auto"


def function_name(layer):
    return getattr(layer.fn, "__name__", layer.type)


def slot_value(layer, slot):
    value = layer.args.get(slot.argument)
    if slot.index is not None:
        return value[slot.index] if isinstance(value, list) and len(value) > slot.index else None
    return value


def _slot_path(layer, slot):
    return layer.path + ((slot.argument, slot.index) if slot.index is not None else (slot.argument,))


def _traced(spec, ref, keep):
    """The feed or layer a reference's values come from, through the layers of ``keep``."""
    seen = set()
    while isinstance(ref, str):
        name = ref.split("[", 1)[0]
        if name in spec.feeds:
            return name
        layer = spec.layer(name)
        if layer is None or name in seen or function_name(layer) not in keep:
            return layer
        seen.add(name)
        ref = next((layer.args[a] for a in SOURCE_ARGUMENTS if a in layer.args), None)
    return None


def data_sizes(spec, counts):
    """{layer name: [(size, why)]}: what the data says each sized layer's size is; ``counts``
    {feed: (kind, ids)} from the fitted preprocessing (Preprocessing.id_counts)."""
    found = {}
    for layer in spec.layers:
        name = function_name(layer)
        slot = SLOTS.get(name)
        if slot is not None and slot.rule == "ids":
            feed = _traced(spec, layer.args.get(slot.source), KEEP_IDS)
            if isinstance(feed, str) and counts.get(feed, ("",))[0] in ("category", "text"):
                kind, n = counts[feed]
                found.setdefault(layer.name, []).append(
                    (n, f"the {kind} feed '{feed}' has {n} ids, reserved ones included")
                )
        if name in CLASS_LAYERS:
            logits, label = CLASS_LAYERS[name]
            feed = _traced(spec, layer.args.get(label), KEEP_IDS)
            if not (isinstance(feed, str) and counts.get(feed, ("",))[0] in ("label", "category")):
                continue
            target = _traced(spec, layer.args.get(logits), KEEP_CLASSES)
            target_slot = (
                SLOTS.get(function_name(target)) if target is not None and not isinstance(target, str) else None
            )
            if target_slot is not None and target_slot.rule == "classes":
                kind, n = counts[feed]
                why = (
                    f"the {kind} feed '{feed}' has {n} class{'' if n == 1 else 'es'} ('{layer.name}' takes this layer's output as its "
                    f"{logits})"
                )
                found.setdefault(target.name, []).append((n, why))
    return found


def fill_feed_widths(spec, widths):
    """Gives each one-hot feed (``widths`` {feed: values per sample}) its width: an implied ``[auto]``
    shape is filled, a declared one checked; an ``[auto]`` left without a width is an error."""
    for name, feed in spec.feeds.items():
        n = widths.get(name)
        if AUTO in feed.shape and n is None:
            raise feed.doc.error(
                feed.path,
                "a one-hot feed's width comes from its fitted vocabularies; there are none here",
                "give the run config (or the run)",
            )
        if AUTO in feed.shape:
            feed.shape, feed.full_shape = [n], [-1, n]
        elif n is not None and (list(feed.shape) not in ([n], [-1, n]) or feed.dtype != "float32"):
            raise feed.doc.error(
                feed.path,
                f"{feed.dtype} {list(feed.shape)}, but the one-hot category feed "
                f"'{name}' is float32 [{n}] (its vocabulary sizes summed, as fitted on data.train)",
                "leave the feed out of the model file: data.preprocessing declares it",
            )


def fill_sizes(spec, counts, widths=None):
    """Fills every ``auto`` size of ``spec``'s layers from ``counts`` (in the layers' build
    arguments; the model as written keeps ``auto``) and the one-hot feeds' ``widths``, and checks
    every number written where the data decides it. Raises the model file's ConfigError at the
    size's key."""
    fill_feed_widths(spec, widths or {})
    found = data_sizes(spec, counts)
    for layer in spec.layers:
        slot = SLOTS.get(function_name(layer))
        if slot is None:
            continue
        value, sizes = slot_value(layer, slot), found.get(layer.name, [])
        path = _slot_path(layer, slot)
        if len({n for n, _ in sizes}) > 1:
            raise layer.doc.error(
                path,
                f"the data gives this layer two sizes: {sizes[0][1]}, {sizes[1][1]}",
                "write the size, or give each use a layer of its own",
            )
        if _omitted(layer, slot) and sizes:  # left out where a rule decides it: as auto
            _set(layer, slot, sizes[0][0])
        elif value == AUTO:
            if not sizes:
                raise layer.doc.error(path, _no_rule(slot, counts), "write the number")
            _set(layer, slot, sizes[0][0])
        elif sizes and isinstance(value, int) and not isinstance(value, bool):
            n, why = sizes[0]
            if (value < n) if slot.rule == "ids" else (value != n):
                what = f"{value} rows, fewer than" if slot.rule == "ids" else f"{value} outputs, but"
                raise layer.doc.error(
                    path, f"{what} the data's {n}: {why}, as fitted on data.train", f"write auto (or {n})"
                )
    check_filled(spec)


_RULES = {
    "ids": "an embedding over a category or text feed of data.preprocessing",
    "classes": "the logits of a label feed of data.preprocessing",
}


def _no_rule(slot, counts):
    if slot.rule == "ids":
        fed = ", ".join(f for f, (k, _) in counts.items() if k in ("category", "text")) or "none"
        return (
            f"auto rows need ids from a category or text feed of data.preprocessing (here: {fed}) as the {slot.source}"
        )
    fed = ", ".join(f for f, (k, _) in counts.items() if k in ("label", "category")) or "none"
    return (
        f"an auto output size needs this layer to give the logits of a softmax_with_cross_entropy, "
        f"cross_entropy or accuracy whose label is a label or category feed of data.preprocessing (here: {fed})"
    )


def _set(layer, slot, n):
    if slot.index is None:
        layer.kwargs[slot.argument] = n
    else:
        value = list(layer.kwargs[slot.argument])
        value[slot.index] = n
        layer.kwargs[slot.argument] = value


def has_auto(spec):
    """The model leaves a size to the data: ``auto``, or a size argument left out, or a one-hot
    feed's width."""
    return any(AUTO in feed.shape for feed in spec.feeds.values()) or any(
        _autos(layer) or _omitted(layer, SLOTS.get(function_name(layer))) for layer in spec.layers
    )


def omittable(fn):
    """The size arguments of layer function ``fn`` a model file may leave out for the data to decide
    (an fc's size; not an embedding's [rows, width], whose width the data cannot give)."""
    slot = SLOTS.get(getattr(fn, "__name__", None))
    return (slot.argument,) if slot is not None and slot.index is None else ()


def _omitted(layer, slot):
    return slot is not None and slot.index is None and slot.argument not in layer.args


def _autos(layer):
    """The key paths of ``auto`` among a layer's build arguments (the unfilled sizes)."""
    out = []
    for key, value in (layer.kwargs or layer.args).items():
        items = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
        out += [layer.path + ((key,) if i is None else (key, i)) for i, v in items if v == AUTO]
    return out


def check_filled(spec):
    """Raises at the first ``auto`` no rule filled (a layer without a size slot, or a model built
    without fitted preprocessing)."""
    for layer in spec.layers:
        slot = SLOTS.get(function_name(layer))
        if _omitted(layer, slot) and slot.argument not in (layer.kwargs or {}):
            raise layer.doc.error(
                layer.path,
                f"missing argument '{slot.argument}' of layer type '{layer.type}'",
                f"add '{slot.argument}: ...' (the data decides it, as auto, only for {_RULES[slot.rule]})",
            )
        autos = _autos(layer)
        if autos:
            slot = SLOTS.get(function_name(layer))
            if slot is None or autos[0] != _slot_path(layer, slot):
                raise layer.doc.error(
                    autos[0],
                    f"auto stands only for a size the data decides (an embedding's rows, "
                    f"a classifier's outputs), not for this argument of '{layer.type}'",
                    "write the number",
                )
            raise layer.doc.error(
                autos[0],
                "auto is filled from what a run config's data.preprocessing fits "
                "on its data; a model file alone has none",
                "give the run config (or the run), or write the number",
            )


__all__ = ["AUTO", "check_filled", "data_sizes", "fill_feed_widths", "fill_sizes", "has_auto", "omittable"]
