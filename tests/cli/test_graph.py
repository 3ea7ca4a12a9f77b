"""pe graph: DOT that parses (with graphviz's dot when installed, else a small DOT grammar check),
readable text with YAML locations, the train phase's roles, the multi-device graph, rendering."""

import re
import shutil
import subprocess

import pytest

from tests.cli.test_helpers import pe

_TOKEN = re.compile(
    r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<id>[A-Za-z_][A-Za-z0-9_.]*|-?\d+(?:\.\d+)?)'
    r"|(?P<arrow>->|--)|(?P<punct>[{}\[\];,=])|(?P<comment>//[^\n]*|/\*.*?\*/))",
    re.S,
)


def tokens(text):
    pos, out = 0, []
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        assert m and m.end() > pos, f"DOT: cannot read {text[pos : pos + 40]!r}"
        pos = m.end()
        if m.group("comment") is None:
            out.append(m.group(0).strip())
    return out


def check_dot(text):
    """A recursive-descent check of the DOT grammar (graph, statements, attribute lists, edges,
    subgraphs). Returns (nodes, edges) counts."""
    toks = tokens(text)
    pos = 0
    counts = {"nodes": 0, "edges": 0}

    def peek():
        return toks[pos] if pos < len(toks) else None

    def take(expected=None):
        nonlocal pos
        tok = peek()
        assert tok is not None, "DOT: unexpected end"
        assert expected is None or tok == expected, f"DOT: expected {expected!r}, got {tok!r}"
        pos += 1
        return tok

    def ident():
        tok = take()
        assert tok not in "{}[];,=" and tok not in ("->", "--"), f"DOT: expected an ID, got {tok!r}"
        return tok

    def attr_list():
        while peek() == "[":
            take("[")
            while peek() != "]":
                ident()
                take("=")
                ident()
                if peek() in (",", ";"):
                    take()
            take("]")

    def stmt_list():
        take("{")
        while peek() != "}":
            stmt()
            if peek() == ";":
                take(";")
        take("}")

    def stmt():
        if peek() == "subgraph":
            take()
            if peek() != "{":
                ident()
            stmt_list()
            return
        if peek() in ("graph", "node", "edge"):
            take()
            attr_list()
            return
        ident()
        if peek() == "=":
            take("=")
            ident()
            return
        if peek() == "->":
            while peek() == "->":
                take("->")
                ident()
                counts["edges"] += 1
        else:
            counts["nodes"] += 1
        attr_list()

    if peek() == "strict":
        take()
    take("digraph")
    if peek() != "{":
        ident()
    stmt_list()
    assert pos == len(toks), f"DOT: trailing {toks[pos : pos + 5]}"
    return counts["nodes"], counts["edges"]


def parses(text, tmp_path):
    nodes, edges = check_dot(text)
    assert nodes > 0 and edges > 0
    dot = shutil.which("dot")
    if dot:
        path = tmp_path / "g.dot"
        path.write_text(text)
        subprocess.run([dot, "-Tsvg", str(path), "-o", str(tmp_path / "g.svg")], check=True)


def test_the_grammar_check_rejects_broken_dot():
    for broken, message in (
        ("digraph { a -> ; }", "DOT: expected an ID, got ';'"),
        ('digraph { a [label="x] }', "DOT: cannot read '\"x\\] \\}'"),
        ("digraph { a [label=] }", r"DOT: expected an ID, got '\]'"),
        ("graph {", "DOT: expected 'digraph', got 'graph'"),
    ):
        with pytest.raises(AssertionError, match=message):
            check_dot(broken)


def test_model_forward_dot(tmp_path):
    proc = pe("graph", "models/lenet.yaml", "--level", "op")
    assert proc.returncode == 0, proc.stderr
    parses(proc.stdout, tmp_path)
    assert '"op:0" [label="conv2d\\nlayers[0] conv1"' in proc.stdout
    assert "lenet.yaml:6 layers[0] conv1" in proc.stdout  # the tooltip names the line


def test_config_train_phase_text_and_dot(tmp_path):
    text = pe("graph", "configs/mnist_cnn_bn.yaml", "--text", "--phase", "train")
    assert text.returncode == 0, text.stderr
    assert "cnn_bn (train):" in text.stdout and "backward" in text.stdout and "optimize" in text.stdout
    assert "# cnn_bn.yaml:7 layers[0] conv1" in text.stdout and "lr_sched" in text.stdout
    out = tmp_path / "train.dot"
    proc = pe("graph", "configs/mnist_cnn_bn.yaml", "--phase", "train", "-o", out)
    assert proc.returncode == 0, proc.stderr
    dot = out.read_text()
    parses(dot, tmp_path)
    assert "#f8d7da" in dot and "#d1e7dd" in dot and "penwidth=2.5" in dot  # backward, optimize, the loss op


def test_ssa_graph(tmp_path):
    proc = pe("graph", "configs/mnist_mlp.yaml", "--ssa", "--devices", "2")
    assert proc.returncode == 0, proc.stderr
    parses(proc.stdout, tmp_path)
    assert "device 0" in proc.stdout and "device 1" in proc.stdout


def test_render(tmp_path):
    out = tmp_path / "g.svg"
    proc = pe("graph", "models/mlp.yaml", "--render", "svg", "-o", out)
    assert (tmp_path / "g.dot").exists()
    if shutil.which("dot"):
        assert proc.returncode == 0 and out.exists()
    else:
        assert proc.returncode == 1 and "apt-get install graphviz" in proc.stderr
        assert "dot -Tsvg" in proc.stderr and "Traceback" not in proc.stderr


def test_graph_errors():
    proc = pe("graph", "models/mlp.yaml", "epochs=2")
    assert proc.returncode == 2 and "overrides apply to run configs" in proc.stderr
    proc = pe("graph", "tests/broken_configs/models/typo_layer.yaml")
    assert proc.returncode == 2 and "did you mean 'fc'" in proc.stderr


def test_ssa_with_text_or_phase_is_refused_not_ignored():
    from tests.cli.test_helpers import pe as run_pe

    for extra, message in ((["--text"], "drop --text"), (["--phase", "forward"], "drop --phase")):
        proc = run_pe("graph", "models/mlp.yaml", "--ssa", *extra)
        assert proc.returncode == 2 and message in proc.stderr and proc.stdout == ""


def test_layer_level_is_the_default_forward_drawing(tmp_path):
    """One box per YAML layer, Caffe's draw_net style, with the shapes on the edges."""
    proc = pe("graph", "models/lenet.yaml")
    assert proc.returncode == 0, proc.stderr
    parses(proc.stdout, tmp_path)
    boxes = re.findall(r'^  "(\w+)" \[label="[^"]*", shape=box', proc.stdout, re.M)
    assert boxes == ["conv1", "pool1", "conv2", "pool2", "fc1", "fc2", "logits", "xent", "loss", "acc"]
    assert '"pool2" -> "fc1" [label="[-1, 16, 5, 5]"]' in proc.stdout
    assert '"label" -> "xent"' in proc.stdout and "op:" not in proc.stdout
    refused = pe("graph", "models/lenet.yaml", "--level", "layer", "--text")
    assert refused.returncode == 2 and "--level op" in refused.stderr


def test_training_graph_groups_each_layers_gradient_and_update_ops(tmp_path):
    out = tmp_path / "train.dot"
    proc = pe("graph", "configs/mnist_mlp.yaml", "--phase", "train", "--level", "op", "-o", out)
    assert proc.returncode == 0, proc.stderr
    dot = out.read_text()
    parses(dot, tmp_path)
    clusters = dict(re.findall(r'subgraph cluster_layer\d+ \{\n\s+label="([^"]+)";[^\n]*\n((?:\s+"op:[^\n]*\n)+)', dot))
    assert set(clusters) == {
        "layers[4] loss: gradient",
        "layers[3] xent: gradient",
        "layers[2] logits: gradient and update",
        "layers[1] fc2: gradient and update",
        "layers[0] fc1: gradient and update",
    }
    fc1 = clusters["layers[0] fc1: gradient and update"]
    assert re.findall(r'label="(\w+)\\n', fc1) == [
        "relu_grad",
        "elementwise_add_grad",
        "mul_grad",
        "momentum",
        "momentum",
    ]  # no dX for the first layer
    inside = sum(len(re.findall(r'"op:\d+" \[', body)) for body in clusters.values())
    backward_or_update = len(re.findall(r'fillcolor="(?:#f8d7da|#d1e7dd)", tooltip="(?:backward|optimize) \|', dot))
    assert inside == backward_or_update  # every gradient and update op is in its layer's cluster
