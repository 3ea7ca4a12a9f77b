"""What the modules of Fluid 1.8.5's wheel that users import by path do under ``pe fluid`` (issue 76,
item 3). Expected values marked "Fluid 1.8.5" were printed by the wheel on the same calls."""

import importlib
import io
import tarfile

import numpy as np
import pytest

from pe_cli.fluid import runner

runner.install()
fluid = importlib.import_module("paddle.fluid")


def test_parallel_executor_module_is_pes_parallel_executor(monkeypatch):
    from paddle.fluid.parallel_executor import ParallelExecutor

    assert ParallelExecutor is fluid.ParallelExecutor
    monkeypatch.setenv("CPU_NUM", "1")
    main, startup, scope = fluid.Program(), fluid.Program(), fluid.Scope()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 3])
        loss = fluid.layers.mean(fluid.layers.fc(x, 2))
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    (out,) = ParallelExecutor(False, loss_name=loss.name, main_program=main, scope=scope).run(
        [loss.name], feed={"x": np.ones((2, 3), "float32")}
    )
    assert np.isfinite(out).all()


class _Words:
    def generate_sample(self, line):
        def samples():
            if line is None:
                for i in range(3):
                    yield [("words", [i, i + 1]), ("label", [0.5 * i if i == 2 else i])]
            else:
                ids = line.split()
                yield [("words", [int(x) for x in ids]), ("label", [1])] if ids else None

        return samples


def test_data_generator_writes_fluids_multislot_lines(capsys, monkeypatch):
    from paddle.fluid.incubate import data_generator as dg

    gen = type("G", (_Words, dg.MultiSlotDataGenerator), {})()
    gen.set_batch(2)
    gen.run_from_memory()
    monkeypatch.setattr("sys.stdin", io.StringIO("1 2 3\n\n4\n"))
    other = type("G", (_Words, dg.MultiSlotDataGenerator), {})()
    other.run_from_stdin()
    assert capsys.readouterr().out == "2 0 1 1 0\n2 1 2 1 1\n2 2 3 1 1.0\n3 1 2 3 1 1\n1 4 1 1\n"  # Fluid 1.8.5
    assert gen._proto_info == [("words", "uint64"), ("label", "float")]
    with pytest.raises(ValueError, match="field name of two given line are not match: require<v>, get<w>"):
        gen = dg.MultiSlotDataGenerator()
        gen._gen_str([("v", [1])])
        gen._gen_str([("w", [1])])
    assert dg.MultiSlotStringDataGenerator()._gen_str([("w", ["a", "b"]), ("l", ["1"])]) == "2 a b 1 1\n"


def test_ploter_draws_the_curves_or_records_them(tmp_path, monkeypatch):
    from paddle.utils.plot import Ploter

    ploter = Ploter("train cost", "test cost")
    for step in range(4):
        ploter.append("train cost", step, 1.0 / (step + 1))
    ploter.plot(str(tmp_path / "curve.png"))
    assert (tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"
    monkeypatch.setenv("DISABLE_PLOT", "True")
    quiet = Ploter("cost")
    quiet.append("cost", 0, 1.0)
    quiet.plot(str(tmp_path / "none.png"))
    assert not (tmp_path / "none.png").exists() and quiet.__plot_data__["cost"].value == [1.0]


def test_fleet_util_global_auc_and_metrics():
    from paddle.fluid.incubate.fleet.base import role_maker
    from paddle.fluid.incubate.fleet.parameter_server.distribute_transpiler import fleet
    from paddle.fluid.incubate.fleet.utils.fleet_util import FleetUtil

    fleet.init(
        role_maker.UserDefinedRoleMaker(
            current_id=0, role=role_maker.Role.WORKER, worker_num=1, server_endpoints=["127.0.0.1:6170"]
        )
    )
    util, scope = FleetUtil("transpiler"), fluid.Scope()
    scope.var("pos").get_tensor().set(np.array([[1, 2, 0, 5, 3]], "int64"), fluid.CPUPlace())
    scope.var("neg").get_tensor().set(np.array([[4, 1, 2, 0, 1]], "int64"), fluid.CPUPlace())
    # positives above negatives, ties counted half: (2 + 9 + 0 + 35 + 22.5) / (11 * 8)
    assert util.get_global_auc(scope, "pos", "neg") == pytest.approx(68.5 / 88)
    for name, value in (("sqrerr", 2.0), ("abserr", 3.0), ("prob", 6.0), ("q", 5.0), ("p", 11.0), ("total", 19.0)):
        scope.var(name).get_tensor().set(np.array([value], "float32"), fluid.CPUPlace())
    auc, _, mae, rmse, ctr, pctr, copc, q, total = util.get_global_metrics(scope, "pos", "neg", pos_ins_num_name="p")
    assert (auc, mae, rmse, ctr, pctr, copc, q, total) == pytest.approx(
        (68.5 / 88, 3 / 19, (2 / 19) ** 0.5, 11 / 19, 6 / 19, 11 / 6, 5 / 19, 19)
    )
    assert util.get_online_pass_interval("20190720", "0 1", 30, 2, False) == [["0000", "0030"], ["0100", "0130"]]
    with pytest.raises(NotImplementedError, match="HDFS"):
        util.write_model_donefile("hdfs:/out", 20190720, 1, 0, "hdfs://x", "u,p")


def test_dataset_image_decodes_in_opencvs_order_and_transforms(tmp_path):
    from PIL import Image
    from paddle.dataset import image

    pixels = np.zeros((4, 6, 3), "uint8")
    pixels[..., 0] = 200  # red in RGB
    Image.fromarray(pixels).save(tmp_path / "red.png")
    im = image.load_image(str(tmp_path / "red.png"))
    assert im.shape == (4, 6, 3) and im[0, 0].tolist() == [0, 0, 200]  # BGR, as OpenCV reads
    assert image.load_image_bytes((tmp_path / "red.png").read_bytes(), is_color=False).shape == (4, 6)
    assert image.resize_short(im, 8).shape == (8, 12, 3)
    out = image.simple_transform(im, 8, 4, is_train=False, mean=[1.0, 2.0, 3.0])
    assert out.shape == (3, 4, 4) and out.dtype == np.float32 and out[2, 0, 0] == pytest.approx(197.0, abs=2)
    tar_path = tmp_path / "imgs.tar"
    with tarfile.open(tar_path, "w") as tar:
        tar.add(tmp_path / "red.png", arcname="a/red.png")
    meta = image.batch_images_from_tar(str(tar_path), "train", {"a/red.png": 3}, num_per_batch=1)
    assert open(meta).read().count("batch_0") == 1
