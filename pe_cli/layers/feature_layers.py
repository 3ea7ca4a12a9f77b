"""The layers a model file's features stand for (pe_cli/config/features.py expands
``input_features`` / ``output_features`` into them): each as ``(name, {type: ..., arguments})``, as a
model file's ``layers`` list writes it, sizes the data decides as ``auto``.

- ``encoder_layers``: one input feature to a [N, width] variable (none for a numeric, binary or date
  feed, or a one-hot category, which the combiner takes as they are);
- ``combiner_layers``: the encoded inputs joined (concat) and through fc + relu layers (each then a
  dropout, upscale_in_train, when ``dropout``);
- ``head_layers``: one output: a classifier (fc to the classes, softmax cross entropy, mean,
  accuracy) or a regression (fc to 1, squared error, mean), named ``<name>_logits``/``_pred``,
  ``_err``, ``_loss``, ``_acc`` (``_weighted``: the loss times its ``loss.weight``); ``summed_losses``: several heads' losses summed (``loss``).
"""


def encoder_layers(name, kind, encoder):
    size = encoder.get("size")
    if kind in ("numeric", "binary", "date") or (kind == "category" and encoder.get("type") == "one_hot"):
        return []
    if kind == "category":
        size = size or 8
        return [
            (f"{name}_embed", {"type": "embedding", "input": name, "size": ["auto", size]}),
            (f"{name}_vec", {"type": "reshape", "x": f"{name}_embed", "shape": [-1, size]}),
        ]
    if kind in ("text", "sequence", "set"):
        size = size or 16
        out = [(f"{name}_embed", {"type": "embedding", "input": name, "size": ["auto", size]})]
        if encoder.get("type") == "rnn":
            return out + [
                (f"{name}_gates", {"type": "fc", "input": f"{name}_embed", "size": 4 * size}),
                (f"{name}_lstm", {"type": "dynamic_lstm", "input": f"{name}_gates", "size": 4 * size}),
                (f"{name}_pool", {"type": "sequence_pool", "input": f"{name}_lstm[0]", "pool_type": "max"}),
            ]
        pool = encoder.get("pool") or ("sum" if kind == "set" else "average")
        return out + [(f"{name}_pool", {"type": "sequence_pool", "input": f"{name}_embed", "pool_type": pool})]
    out, prev = [], name
    for i, filters in enumerate(encoder.get("filters") or [8, 16]):
        out += [
            (
                f"{name}_conv{i + 1}",
                {
                    "type": "conv2d",
                    "input": prev,
                    "num_filters": filters,
                    "filter_size": 3,
                    "padding": 1,
                    "act": "relu",
                },
            ),
            (
                f"{name}_pool{i + 1}",
                {
                    "type": "pool2d",
                    "input": f"{name}_conv{i + 1}",
                    "pool_size": 2,
                    "pool_stride": 2,
                    "pool_type": "max",
                },
            ),
        ]
        prev = f"{name}_pool{i + 1}"
    return out + [(f"{name}_vec", {"type": "fc", "input": prev, "size": size or 64, "act": "relu"})]


def combiner_layers(encoded, layers, size, dropout=0):
    out, prev = [], encoded[0]
    if len(encoded) > 1:
        out.append(("combined", {"type": "concat", "input": list(encoded), "axis": 1}))
        prev = "combined"
    for i in range(layers):
        out.append((f"hidden{i + 1}", {"type": "fc", "input": prev, "size": size, "act": "relu"}))
        prev = f"hidden{i + 1}"
        if dropout:  # scaled by 1 / (1 - p) while training, nothing at inference (torch's, Ludwig's)
            drop = {"type": "dropout", "x": prev, "dropout_prob": float(dropout)}
            out.append((f"{prev}_drop", {**drop, "dropout_implementation": "upscale_in_train"}))
            prev = f"{prev}_drop"
    return out


def head_layers(name, kind, prev, weight=1):
    """One output's head; a ``weight`` other than 1 adds ``<name>_weighted``, its loss times it."""
    weighted = [(f"{name}_weighted", {"type": "scale", "x": f"{name}_loss", "scale": float(weight)})]
    weighted = weighted if weight != 1 else []
    if kind == "numeric":
        return [
            (f"{name}_pred", {"type": "fc", "input": prev, "size": 1}),
            (f"{name}_err", {"type": "square_error_cost", "input": f"{name}_pred", "label": name}),
            (f"{name}_loss", {"type": "mean", "x": f"{name}_err"}),
        ] + weighted
    return [
        (f"{name}_logits", {"type": "fc", "input": prev, "size": "auto"}),
        (f"{name}_err", {"type": "softmax_with_cross_entropy", "logits": f"{name}_logits", "label": name}),
        (f"{name}_loss", {"type": "mean", "x": f"{name}_err"}),
        (f"{name}_acc", {"type": "accuracy", "input": f"{name}_logits", "label": name}),
    ] + weighted


def summed_losses(losses):
    return [("loss", {"type": "sums", "input": list(losses)})]


__all__ = ["combiner_layers", "encoder_layers", "head_layers", "summed_losses"]
