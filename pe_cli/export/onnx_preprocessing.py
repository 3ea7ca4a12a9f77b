"""The run's preprocessing in an exported ONNX graph, where it can go: numeric preprocessing
(missing values filled, ln(1 + x), (x - shift) / divide) and the config's ``scale`` and scalar
``normalize`` transforms become IsNaN/Where/Add/Log/Sub/Div/Mul nodes before the model, so the
graph input takes the raw column(s); category and text feeds take their strings (a one-hot category
its columns' strings side by side, [N, columns], one-hot in the graph), the vocabularies
and tokenizer in the graph (onnx_vocabularies.py); an image feed its pixel values as decoded (the
scale, mean and std in the graph). What cannot go in the graph (a regex pattern RE2 runs otherwise, image decoding,
other transforms) is listed, and the vocabularies and class names are written
beside the model (``<model>.preprocessing.json``, the run's preprocessing.json; the list in
``<model>.preprocessing.txt``). A numeric regression target's scaling is undone after the output
(``unscale``: Mul/Add, Exp/Sub for scaling: log), so the graph's output is in the target's units."""

import os

import numpy as np

from ..data.ragged import LENGTHS_SUFFIX
from .onnx_vocabularies import category_nodes, one_hot_nodes, text_in_graph, text_nodes, text_outside

_OUTSIDE = {
    "category": "category vocabulary (value -> id)",
    "text": "tokenisation and vocabulary (text -> ids: the feed takes ids)",
    "image": "image decoding, mode, resize and crop (files -> pixel values, float32 [N, C, H, W]: "
    "data/images.py without its scale, mean and std, which are in the graph)",
    "image, all": "image decoding, resize, crop and normalisation (files -> NCHW)",
    "date": "date parsing (ISO dates, or the preprocessing's format, a zone in UTC -> float32 [N, 13]: year "
    "(0 with year: false), month, day, weekday, hour and cyclic parts, data/dates.py)",
}


def preprocessing_nodes(graph, inference, inputs):
    """Prepends the in-graph preprocessing to ``graph.nodes`` (renaming what the model reads);
    ``inputs`` are the model's [(name, dims, dtype)]. Returns (the graph's inputs, feeds preprocessed
    in the graph, one line per step left outside it)."""
    prep = getattr(inference, "preprocessing", None)
    prep = prep.feeds if prep is not None else {}
    transforms = getattr(inference, "transforms", None) or {}
    model_nodes, graph.nodes = graph.nodes, []
    inside, outside, raw = [], [], {}
    for feed in inference.inputs:
        state = prep.get(feed)
        kind = state["kind"] if state is not None else "numeric"
        if kind in ("category", "text") and not transforms.get(feed) and (kind == "category" or text_in_graph(state)):
            raw[feed] = _strings(graph, model_nodes, feed, state)
            inside.append(feed)
            continue
        if kind not in ("numeric", "image"):
            why = text_outside(state) if kind == "text" and not transforms.get(feed) else None
            outside.append(f"{feed}: {_OUTSIDE[kind]}" + (f" ({why})" if why else ""))
            continue
        steps, rest = _numeric_steps(state, transforms.get(feed) or [])
        if kind == "image":
            outside.append(f"{feed}: {_OUTSIDE['image' if not rest else 'image, all']}")
        outside += [f"{feed}: data.transforms {name}" for name in rest]
        if steps and not rest:
            _rename(model_nodes, feed, f"{feed}.preprocessed")
            graph.nodes += _emit(graph, feed, steps)
            inside.append(feed)
    graph.nodes += model_nodes
    return _raw_inputs(inputs, raw), inside, outside


def _strings(graph, model_nodes, feed, state):
    """The nodes from a category or text feed's strings to the ids (and lengths) the model reads;
    returns (the string input's dims or None for the feed's own, the inputs the nodes fill)."""
    ids = f"{feed}.ids"
    if state.get("encoding") == "one_hot":  # the columns' strings [N, columns] side by side
        _rename(model_nodes, feed, f"{feed}.one_hot")
        one_hot_nodes(graph, feed, state, f"{feed}.one_hot")
        return ["N", len(state["vocabularies"])], []
    _rename(model_nodes, feed, ids)
    if state["kind"] == "category":
        category_nodes(graph, feed, state, ids)
        return None, []
    lengths = state.get("lengths_feed") or feed + LENGTHS_SUFFIX
    text_nodes(graph, feed, state, ids, lengths)
    return ["N", 1], [lengths]


def _raw_inputs(inputs, raw):
    """The graph's inputs: a feed whose strings go in is a string input in its place (a text: [N, 1]);
    the inputs its nodes fill (a text's lengths) are gone."""
    gone = {name for _, filled in raw.values() for name in filled}
    out = []
    for name, dims, dtype in inputs:
        if name in raw:
            out.append((name, raw[name][0] or dims, "string"))
        elif name not in gone:
            out.append((name, dims, dtype))
    return out


def _rename(nodes, old, new):
    for node in nodes:
        for i, name in enumerate(node.input):
            if name == old:
                node.input[i] = new


def unscale(graph, name, steps, out=None):
    """The numeric target's unscaling (data/preprocessing.py's ``unscaling``) after the model's
    output ``name``, into ``out``; without ``out`` into ``name``, which the graph still outputs (the
    model's own value is renamed)."""
    current = name
    if out is None:
        current, out = f"{name}.scaled", name
        for node in graph.nodes:
            for names in (node.input, node.output):
                for i, n in enumerate(names):
                    if n == name:
                        names[i] = current
    last = out
    for i, (op, const) in enumerate(steps):
        out = last if i == len(steps) - 1 else graph.temp(f"{name}.{op}")
        inputs = [current] if const is None else [current, graph.constant(np.asarray(const, np.float32))]
        graph.nodes.append(graph.helper.make_node(op, inputs, [out], name=graph.temp(op)))
        current = out


def _numeric_steps(state, transforms):
    """[(op, constant)] of a feed's numeric preprocessing (an image's scale, mean and std) and
    transforms; the kinds of transforms that have no place in the graph."""
    steps = []
    if state is not None and state["kind"] == "image":  # data/images.py's load_images after decoding
        steps.append(("Mul", np.float32(state["scale"])))
        steps += [
            (op, np.asarray(state[key], np.float32).reshape(-1, 1, 1))
            for key, op in (("mean", "Sub"), ("std", "Div"))
            if state[key] is not None
        ]
    elif state is not None:
        steps.append(("fill", np.asarray(state["fill_value"], np.float32)))
        if state["scaling"] == "log":
            steps += [("Add", np.float32(1)), ("Log", None)]
        steps += [("Sub", np.asarray(state["shift"], np.float32)), ("Div", np.asarray(state["divide"], np.float32))]
    rest = []
    for item in transforms:
        ((kind, arg),) = item.items()
        if kind == "scale":
            steps.append(("Mul", np.float32(arg)))
        elif kind == "normalize" and not isinstance(arg["mean"], list) and not isinstance(arg["std"], list):
            steps += [("Sub", np.float32(arg["mean"])), ("Div", np.float32(arg["std"]))]
        else:
            rest.append(kind)
    return steps, rest


def _emit(graph, feed, steps):
    """The nodes from the raw input ``feed`` to the tensor the model reads (renamed in its nodes)."""
    preprocessed = f"{feed}.preprocessed"
    helper, nodes, current = graph.helper, [], feed
    for i, (op, const) in enumerate(steps):
        out = preprocessed if i == len(steps) - 1 else graph.temp(f"{feed}.{op}")
        if op == "fill":
            mask = graph.temp(f"{feed}.isnan")
            nodes.append(helper.make_node("IsNaN", [current], [mask], name=graph.temp("IsNaN")))
            nodes.append(
                helper.make_node("Where", [mask, graph.constant(const), current], [out], name=graph.temp("Where"))
            )
        elif op == "Log":
            nodes.append(helper.make_node("Log", [current], [out], name=graph.temp("Log")))
        else:
            nodes.append(helper.make_node(op, [current, graph.constant(const)], [out], name=graph.temp(op)))
        current = out
    return nodes


def files_beside(inference, path, inside, outside):
    """{path: text} of the files beside the model ``path``: <model>.preprocessing.json (the run's
    preprocessing: vocabularies, class names, statistics) and <model>.preprocessing.txt (what the
    graph does and what is left to the caller), when the run has preprocessing or transforms."""
    if not inside and not outside:
        return {}
    stem = os.path.splitext(path)[0]
    files = {}
    if getattr(inference, "preprocessing", None) is not None:
        files[stem + ".preprocessing.json"] = inference.preprocessing.to_text()
    lines = [
        f"{os.path.basename(path)}: preprocessing of the run's inputs",
        "in the graph (the input takes raw values): " + (", ".join(inside) or "nothing"),
        "NOT in the graph (apply it before the model; vocabularies and class names are in "
        f"{os.path.basename(stem)}.preprocessing.json):",
    ] + [f"  {line}" for line in outside or ["nothing"]]
    files[stem + ".preprocessing.txt"] = "\n".join(lines) + "\n"
    return files


def summary_line(inside, outside):
    """The one line pe export prints."""
    text = f"preprocessing in the graph: {', '.join(inside) or 'none'}"
    if outside:
        text += f"; NOT in the graph (apply it yourself): {'; '.join(outside)}"
    return text
