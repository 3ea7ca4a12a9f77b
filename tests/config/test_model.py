"""Model files: includes, references, arguments, param_attr, and building through the same layer
builders as the Python API, with every op remembering its YAML line."""

import re
import textwrap

import pytest

import pe_cli.fluid as fluid
from pe_cli.config.errors import ConfigError
from pe_cli.config.model import load_model
from pe_cli.framework import OpRole, unique_name
from pe_cli.run.build import build_model


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def build(path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        model = build_model(load_model(path))
    return main, startup, model


def test_bundled_models_build():
    for name in ("logistic_regression", "mlp", "lenet", "cnn_bn"):
        main, startup, model = build(f"models/{name}.yaml")
        assert model.loss.shape == (1,) and model.spec.name == name
        assert list(model.spec.feeds) == ["image", "label"]  # from the include


def test_ops_remember_their_yaml_line():
    main, _, _ = build("models/lenet.yaml")
    sources = {op.source for op in main.global_block().ops}
    assert "lenet.yaml:6 layers[0] conv1" in sources
    assert "lenet.yaml:14 layers[8] loss" in sources


def test_yaml_builds_the_same_program_as_python():
    main, _, model = build("models/mlp.yaml")
    py_main, py_startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(py_main, py_startup), unique_name.guard():
        image = fluid.layers.data("image", [1, 28, 28])
        label = fluid.layers.data("label", [1], dtype="int64")
        h = fluid.layers.fc(image, 256, act="relu", name="fc1")
        h = fluid.layers.fc(h, 128, act="relu", name="fc2")
        logits = fluid.layers.fc(h, 10, name="logits")
        fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label), name="loss")
        fluid.layers.accuracy(logits, label)

    def ops(p):
        return [(op.type, sorted(op.attrs.items())) for op in p.global_block().ops]

    def params(p):
        return sorted((v.name, v.shape) for v in p.all_parameters())

    assert ops(main) == ops(py_main)
    assert params(main) == params(py_main)


def test_includes_merge_and_the_including_file_wins(tmp_path):
    write(
        tmp_path,
        "base.yaml",
        """
        feeds: {x: {shape: [4]}}
        layers:
          - h: {type: fc, input: x, size: 3}
          - loss: {type: mean, x: h}
        loss: loss
        fetches: [loss]
    """,
    )
    top = write(
        tmp_path,
        "top.yaml",
        """
        include: base.yaml
        layers:
          - more: {type: scale, x: h, scale: 2.0}
        fetches: [loss, more]
    """,
    )
    spec = load_model(top)
    assert [layer.name for layer in spec.layers] == ["h", "loss", "more"]
    assert spec.loss == "loss" and spec.fetches == ["loss", "more"] and spec.name == "top"
    again = write(
        tmp_path,
        "again.yaml",
        """
        include: base.yaml
        feeds: {x: {shape: [4]}}
    """,
    )
    with pytest.raises(ConfigError, match="already declared in an included file"):
        load_model(again)


def test_param_attr_bias_attr_and_shared_parameters(tmp_path):
    path = write(
        tmp_path,
        "m.yaml",
        """
        feeds: {x: {shape: [4]}}
        layers:
          - a: {type: fc, input: x, size: 4, bias_attr: false,
                param_attr: {name: shared_w, initializer: {type: Normal, scale: 0.01}, learning_rate: 0.5}}
          - b: {type: fc, input: a, size: 4, param_attr: shared_w}
          - c: {type: fc, input: [a, b], size: 2, param_attr: {regularizer: {type: L2Decay, regularization_coeff: 0.1}}}
    """,
    )
    main, startup, _ = build(path)
    params = {p.name: p for p in main.all_parameters()}
    assert "shared_w" in params and "a.b_0" not in params and "b.b_0" in params
    assert params["shared_w"].optimize_attr["learning_rate"] == 0.5
    assert type(params["shared_w"].initializer).__name__ == "NormalInitializer"
    assert params["c.w_0"].regularizer is not None


def test_multi_output_layers_are_indexed(tmp_path):
    path = write(
        tmp_path,
        "m.yaml",
        """
        feeds: {x: {shape: [4]}, y: {shape: [1], dtype: int64}}
        layers:
          - logits: {type: fc, input: x, size: 3}
          - both: {type: softmax_with_cross_entropy, logits: logits, label: y, return_softmax: true}
          - loss: {type: mean, x: "both[0]"}
          - probs: {type: scale, x: "both[1]"}
        loss: loss
        fetches: ["both[1]", probs]
    """,
    )
    _, _, model = build(path)
    assert model.var("both[1]").shape == (-1, 3)


@pytest.mark.parametrize(
    "layers, message",
    [
        ("- h: {type: fc, input: [x, nope], size: 2}", "layers[0].h.input[1]: no feed or earlier layer named 'nope'"),
        ("- h: {type: fc, input: h, size: 2}", "refers to itself"),
        ("- h: {type: fc, input: x, size: 2, param_attr: {initializer: {type: Normall}}}", "did you mean 'Normal'"),
        (
            "- h: {type: fc, input: x, size: 2, param_attr: {learning_rat: 1}}",
            "unknown argument 'learning_rat' of ParamAttr",
        ),
        ("- h: {type: fc, input: x, size: 2, name: other}", "'name' is set by pe"),
        ("- h: {type: fc, input: x}", "missing argument 'size' of layer type 'fc'"),
        ("- h: {type: fc, input: x, size: 2, num_flatten_dims: true}", "expected an integer"),
        ("- h: {type: fc, input: x, size: 2, is_test: 1}", "expected true or false"),
        ("- h: {type: cast, x: x, dtype: float33}", "unknown dtype"),
        ("- h: fc", "missing argument"),
        ("- {h: {type: fc}, g: {type: fc}}", "expected one 'name: {type: ..., arguments}' entry"),
        ("- x: {type: fc, input: x, size: 2}", "already used by a feed"),
        ("- 2h: {type: fc, input: x, size: 2}", "not a usable name"),
        ("- h: {input: x, size: 2}", "has no type"),
    ],
)
def test_layer_errors(tmp_path, layers, message):
    path = write(tmp_path, "m.yaml", "feeds: {x: {shape: [4]}}\nlayers:\n  " + layers + "\n")
    with pytest.raises(ConfigError, match=re.escape(message)) as e:
        build(path)
    assert message in e.value.line(), e.value.line()
    assert e.value.line().startswith(str(tmp_path / "m.yaml").lstrip("/")) or "m.yaml:" in e.value.line()


def test_roles_of_a_trained_program():
    from pe_cli.run.build import build_programs

    programs = build_programs(load_model("models/mlp.yaml"))
    roles = {op.role & ~OpRole.Loss for op in programs.main.global_block().ops}
    assert {OpRole.Forward, OpRole.Backward, OpRole.Optimize} <= roles
    assert all((op.role & ~OpRole.Loss) == OpRole.Forward for op in programs.test.global_block().ops)
