"""fluid.contrib.slim's Compressor: a slim YAML with a UniformPruneStrategy prunes half the filters
of each conv at start_epoch (the following batch norm, conv and fc shrink with them), training goes
on with the pruned net and each epoch's eval metrics are reported; checkpoints are written per epoch
and a second run resumes after the last one; a bad YAML is a one-line error naming file and key.
QuantizationStrategy trains with fake quantization and saves frozen models; DistillationStrategy
trains the student on L2 and soft-label losses against a teacher it leaves unchanged."""

import re
import logging

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.fluid.contrib.slim.core import Compressor
from pe_cli.fluid.contrib.slim.graph.graph_wrapper import GraphWrapper

_YAML = """version: 1.0
pruners:
    pruner_1:
        class: 'StructurePruner'
        pruning_axis: {'*': 0}
        criterions: {'*': 'l1_norm'}
strategies:
    uniform_pruning_strategy:
        class: 'UniformPruneStrategy'
        pruner: 'pruner_1'
        start_epoch: 1
        target_ratio: 0.5
        pruned_params: 'conv2d_.*\\.w_0'
compressor:
    epoch: 2
    checkpoint_path: '%s'
    strategies:
        - uniform_pruning_strategy
"""


def _reader(seed, batches=4, batch=8):
    def reader():
        rng = np.random.default_rng(seed)
        for _ in range(batches):
            labels = rng.integers(0, 2, batch)
            images = rng.normal(0, 1, (batch, 1, 8, 8)).astype("float32")
            images[:, :, :4] += 0.8 * labels[:, None, None, None]
            yield [(img, np.array([lab], "int64")) for img, lab in zip(images, labels)]

    return reader


def _compressor(checkpoints):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        image = fluid.data("image", [None, 1, 8, 8], "float32")
        label = fluid.data("label", [None, 1], "int64")
        conv = fluid.layers.conv2d(image, num_filters=8, filter_size=3, act="relu")
        conv = fluid.layers.batch_norm(conv)
        conv = fluid.layers.conv2d(conv, num_filters=4, filter_size=3, act="relu")
        logits = fluid.layers.fc(conv, size=2)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        acc = fluid.layers.accuracy(fluid.layers.softmax(logits), label)
        test = main.clone(for_test=True)
    scope, place = fluid.Scope(), fluid.CPUPlace()
    fluid.Executor(place).run(startup, scope=scope)
    feeds = [("image", "image"), ("label", "label")]
    return Compressor(
        place,
        scope,
        main,
        train_reader=_reader(1),
        train_feed_list=feeds,
        train_fetch_list=[("loss", loss.name)],
        eval_program=test,
        eval_reader=_reader(2, 2),
        eval_feed_list=feeds,
        eval_fetch_list=[("acc", acc.name), ("loss", loss.name)],
        checkpoint_path=checkpoints and str(checkpoints),
        train_optimizer=fluid.optimizer.Adam(0.01),
    )


@pytest.fixture(scope="module")
def compressed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("slim")
    config = tmp / "compress.yaml"
    config.write_text(_YAML % (tmp / "checkpoints"))
    com = _compressor(tmp / "ckpt-unused")
    com.config(str(config))
    shapes = {}

    class Recorder:  # reads the filter count each epoch begins with (after the pruner's hook)
        start_epoch = end_epoch = 0

        def __getattr__(self, name):
            return lambda context: None

        def on_epoch_end(self, context):
            shapes[context.epoch_id] = np.array(context.scope.find_var("conv2d_0.w_0").get_tensor()).shape

    com.strategies.append(Recorder())
    com.run()
    return com, config, shapes, tmp


def test_filters_pruned_by_ratio_at_start_epoch(compressed):
    com, _, shapes, _ = compressed
    assert shapes[0] == (8, 1, 3, 3)
    assert shapes[1] == (4, 1, 3, 3)
    scope = com.context.scope
    assert np.array(scope.find_var("conv2d_1.w_0").get_tensor()).shape == (2, 4, 3, 3)
    assert np.array(scope.find_var("batch_norm_0.w_1").get_tensor()).shape == (4,)
    assert np.array(scope.find_var("fc_0.w_0").get_tensor()).shape == (2 * 4 * 4, 2)
    assert com.context.eval_graph.program.global_block().var("conv2d_0.w_0").shape == (4, 1, 3, 3)


def test_eval_metrics_reported_each_epoch(compressed):
    com = compressed[0]
    results = com.context.eval_results
    assert len(results["acc"]) == 2 and len(results["loss"]) == 2
    assert all(0.0 <= a <= 1.0 for a in results["acc"]) and all(np.isfinite(results["loss"]))


def test_checkpoints_resume(compressed, caplog):
    _, config, _, tmp = compressed
    assert sorted(p.name for p in (tmp / "checkpoints").iterdir()) == ["0", "1"]
    assert (tmp / "checkpoints" / "1" / "eval_model").is_dir()
    longer = tmp / "longer.yaml"  # one epoch more: it trains the restored, pruned net
    longer.write_text(config.read_text().replace("epoch: 2", "epoch: 3"))
    again = _compressor(tmp / "unused")
    again.config(str(longer))
    with caplog.at_level(logging.INFO, logger="pe.slim"):
        again.run()
    assert any("resumed from" in r.message for r in caplog.records)
    assert np.array(again.scope.find_var("conv2d_0.w_0").get_tensor()).shape == (4, 1, 3, 3)
    first = compressed[0].context.eval_results
    assert {k: v[:2] for k, v in again.context.eval_results.items()} == first
    assert len(again.context.eval_results["loss"]) == 3 and np.isfinite(again.context.eval_results["loss"][2])
    assert sorted(p.name for p in (tmp / "checkpoints").iterdir()) == ["0", "1", "2"]


@pytest.mark.parametrize(
    "text,where",
    [
        ("strategies:\n  s:\n    class: 'NoSuchStrategy'\ncompressor:\n  epoch: 1\n", "strategies.s.class"),
        ("compressor:\n  epoch: 1\n  strategies: [missing]\n", "compressor.strategies[0]"),
        ("compresor:\n  epoch: 1\n", "compresor"),
        ("strategies: [\n", "line"),
    ],
)
def test_bad_yaml_is_one_line_error(tmp_path, text, where):
    config = tmp_path / "bad.yaml"
    config.write_text(text)
    with pytest.raises(ValueError, match=re.escape(f"{config}: {where}")) as info:
        _compressor(tmp_path / "c").config(str(config))
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{config}: {where}")


_QUANT_YAML = """version: 1.0
strategies:
    quantization_strategy:
        class: 'QuantizationStrategy'
        start_epoch: 0
        end_epoch: 1
        float_model_save_path: '%s'
        int8_model_save_path: '%s'
        activation_quantize_type: 'moving_average_abs_max'
compressor:
    epoch: 2
    strategies:
        - quantization_strategy
"""


def test_quantization_strategy_trains_quantized_and_saves_frozen_models(tmp_path):
    config = tmp_path / "quant.yaml"
    config.write_text(_QUANT_YAML % (tmp_path / "float", tmp_path / "int8"))
    com = _compressor(None)
    com.config(str(config))
    com.run()
    train_ops = [op.type for op in com.context.optimize_graph.program.global_block().ops]
    assert "fake_quantize_moving_average_abs_max" in train_ops and "fake_quantize_abs_max" in train_ops
    assert len(com.context.eval_results["acc"]) == 2 and np.isfinite(com.context.eval_results["loss"]).all()
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        program, feeds, fetches = fluid.io.load_inference_model(str(tmp_path / "float"), exe)
        images = next(_reader(2)())
        feed = {"image": np.stack([s[0] for s in images]), "label": np.stack([s[1] for s in images])}
        acc = exe.run(program, feed=feed, fetch_list=fetches)[0]
    assert 0.0 <= float(np.mean(acc)) <= 1.0
    assert (tmp_path / "int8").is_dir()


_DISTILL_YAML = """version: 1.0
distillers:
    l2_distiller:
        class: 'L2Distiller'
        student_feature_map: 'fc_0.tmp_1'
        teacher_feature_map: 'teacher_fc.tmp_1'
        distillation_loss_weight: 1
    soft_label_distiller:
        class: 'SoftLabelDistiller'
        student_feature_map: 'fc_0.tmp_1'
        teacher_feature_map: 'teacher_fc.tmp_1'
        student_temperature: 2.0
        teacher_temperature: 2.0
strategies:
    distillation_strategy:
        class: 'DistillationStrategy'
        distillers: ['l2_distiller', 'soft_label_distiller']
        start_epoch: 0
        end_epoch: 0
compressor:
    epoch: 2
    strategies:
        - distillation_strategy
"""


def test_distillation_trains_student_towards_a_fixed_teacher(tmp_path):
    com = _compressor(None)
    teacher, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(teacher, startup):
        image = fluid.data("image", [None, 1, 8, 8], "float32")
        fluid.layers.fc(
            image,
            size=2,
            param_attr=fluid.ParamAttr(name="teacher_fc.w_0"),
            bias_attr=fluid.ParamAttr(name="teacher_fc.b_0"),
            name="teacher_fc",
        )
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=com.scope)
    com.teacher_graphs.append(GraphWrapper(teacher))  # what teacher_programs=[teacher] builds
    com.distiller_optimizer = fluid.optimizer.SGD(0.05)
    config = tmp_path / "distill.yaml"
    config.write_text(_DISTILL_YAML)
    com.config(str(config))
    teacher_w = np.array(com.scope.find_var("teacher_fc.w_0").get_tensor()).copy()
    seen = {}

    class Recorder:
        start_epoch = end_epoch = 0

        def __getattr__(self, name):
            return lambda context: None

        def on_batch_end(self, context):
            seen.setdefault(context.epoch_id, set()).update(context.optimize_graph.out_nodes)

    com.strategies.append(Recorder())
    com.run()
    assert {"l2_loss_1", "soft_label_loss_2"} <= seen[0] and seen[1] == {"loss"}
    np.testing.assert_array_equal(np.array(com.scope.find_var("teacher_fc.w_0").get_tensor()), teacher_w)
    assert len(com.context.eval_results["loss"]) == 2 and np.isfinite(com.context.eval_results["loss"]).all()
