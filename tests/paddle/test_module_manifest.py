"""Paddle 2.6.2's static-graph modules under ``pe fluid`` (issue 86, item 3): of the 456 modules of
tests/data/paddle-2.6.2-static-modules.json (the wheel's modules a static-graph program can import),
at least 247 import through pe's hook (94 before issue 86, 234 before issue 96, 246 before viterbi_decode), by Paddle's module paths; every one that
does not is left out by tools/paddle_module_manifest.py's LEFT_OUT with why (docs/COMPAT.md lists them).
``python tools/paddle_module_manifest.py`` prints the same measure."""

import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location(
        "paddle_module_manifest", os.path.join(ROOT, "tools", "paddle_module_manifest.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def measured(tool):
    return tool.measure()


def test_the_static_graph_modules_import_or_are_left_out_with_why(measured, tool):
    assert measured["modules"] == 456
    assert len(measured["imported"]) >= 247
    assert [m for m in measured["failed"] if tool.left_out_why(m) is None] == []


def test_the_modules_users_import_first_are_there(measured):
    for name in (
        "paddle.nn.layer.conv",
        "paddle.nn.layer.norm",
        "paddle.nn.layer.pooling",
        "paddle.nn.layer.activation",
        "paddle.nn.layer.common",
        "paddle.nn.layer.loss",
        "paddle.nn.layer.rnn",
        "paddle.nn.layer.transformer",
        "paddle.nn.layer.container",
        "paddle.nn.layer.layers",
        "paddle.vision.models.resnet",
        "paddle.vision.models.mobilenetv2",
        "paddle.vision.datasets",
        "paddle.text.datasets",
        "paddle.io.dataloader.batch_sampler",
        "paddle.static.amp",
        "paddle.jit",
    ):
        assert name in measured["imported"], name
    import paddle.nn.layer.conv as conv
    import paddle.nn.layer.layers as layers
    import paddle.io.dataloader as dataloader
    import paddle.nn.initializer.Bilinear  # noqa: F401 -- a module named as the class its package holds
    import paddle

    assert conv.Conv2D is paddle.nn.Conv2D and layers.Layer is paddle.nn.Layer
    assert dataloader.BatchSampler is paddle.io.BatchSampler
    assert isinstance(paddle.nn.initializer.Bilinear, type) and callable(paddle.tensor.einsum)


def test_the_modules_issue_96_added_give_pes_own_or_refuse_in_one_line(measured):
    """paddle.amp (tests/paddle/test_paddle_amp.py), paddle.callbacks and paddle.distributed.checkpoint: each
    name pe's real one (Callback's hooks, the checkpoint metadata records, Paddle 2.6.2's flatten_state_dict)
    or a refusal naming itself."""
    for name in ("paddle.amp", "paddle.amp.auto_cast", "paddle.callbacks", "paddle.distributed.checkpoint.utils"):
        assert name in measured["imported"], name
    import paddle.callbacks as callbacks
    import paddle.distributed.checkpoint as checkpoint

    class Counting(callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            self.params["seen"] = epoch

    hook = Counting()
    hook.set_params({})
    assert hook.on_train_begin() is None and hook.on_epoch_end(3) is None and hook.params == {"seen": 3}
    with pytest.raises(NotImplementedError, match=r"^paddle.callbacks.EarlyStopping: .*paddle.Model.fit"):
        callbacks.EarlyStopping(monitor="loss")
    with pytest.raises(NotImplementedError, match=r"^paddle.distributed.checkpoint.save_state_dict.save_state_dict: "):
        checkpoint.save_state_dict.save_state_dict({}, "/nowhere")
    meta = checkpoint.metadata.LocalTensorMetadata((0, 4), (2, 4))
    assert meta.local_shape == (2, 4) and checkpoint.utils.flatten_state_dict({"a": {"b": 1}}) == {"a": {"b": 1}}
