"""paddle.static's model files (pe_cli/io/static_io.py): save/load_inference_model with a path
prefix (.pdmodel, .pdiparams), serialize/deserialize of the program and its persistables, and
save_to_file/load_from_file, as Paddle 2.x's; the files are Paddle's formats, so the models
PaddlePaddle 2.6.2 saved (tests/data/paddle_models/) load through the same calls."""

from paths import TESTS
import os

import numpy as np
import pytest

from pe_cli import fluid, paddle
from pe_cli.base.errors import PeError

static = paddle.static
DATA = os.path.join(TESTS, "data", "paddle_models")


def _model():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 4])
        out = static.nn.fc(static.nn.fc(x, 6, activation="relu"), 3)
    exe = static.Executor()
    exe.run(startup)
    feed = {"x": np.random.default_rng(0).normal(size=(5, 4)).astype("float32")}
    (want,) = exe.run(main, feed=feed, fetch_list=[out])
    return main, x, out, exe, feed, want


def test_save_and_load_with_a_path_prefix(tmp_path):
    with static.scope_guard(static.global_scope().__class__()):
        main, x, out, exe, feed, want = _model()
        static.save_inference_model(str(tmp_path / "m" / "model"), [x], [out], exe, program=main)
    assert sorted(os.listdir(tmp_path / "m")) == ["model.pdiparams", "model.pdmodel"]
    with static.scope_guard(static.global_scope().__class__()):
        program, feeds, fetches = static.load_inference_model(str(tmp_path / "m" / "model"), exe)
        (got,) = exe.run(program, feed=feed, fetch_list=fetches)
    assert feeds == ["x"]
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_serialized_bytes_are_the_files_and_deserialize_into_a_fresh_scope(tmp_path):
    with static.scope_guard(static.global_scope().__class__()):
        main, x, out, exe, feed, want = _model()
        program_bytes = static.serialize_program([x], [out], program=main)
        params_bytes = static.serialize_persistables([x], [out], exe, program=main)
        static.save_inference_model(str(tmp_path / "model"), [x], [out], exe, program=main)
    saved = static.deserialize_program((tmp_path / "model.pdmodel").read_bytes())
    serialized = static.deserialize_program(program_bytes)  # each call scales the targets again, as
    assert [op.type for op in saved.global_block().ops] == [op.type for op in serialized.global_block().ops]
    assert params_bytes == (tmp_path / "model.pdiparams").read_bytes()  # Paddle's: save_infer_model/scale_0.tmp_N
    static.save_to_file(str(tmp_path / "copy.bin"), params_bytes)
    assert static.load_from_file(str(tmp_path / "copy.bin")) == params_bytes
    with static.scope_guard(static.global_scope().__class__()):
        program = static.deserialize_program(program_bytes)
        static.deserialize_persistables(program, params_bytes, exe)
        (got,) = exe.run(program, feed=feed, fetch_list=[out.name])
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_models_paddle_saved_load_by_their_prefix():
    exe = static.Executor()
    with static.scope_guard(static.global_scope().__class__()):
        program, feeds, fetches = static.load_inference_model(os.path.join(DATA, "lenet"), exe)
        with np.load(os.path.join(DATA, "lenet_io.npz")) as io:
            (got,) = exe.run(program, feed={"img": io["img"]}, fetch_list=fetches)
            np.testing.assert_allclose(got, io["out"], rtol=1e-5, atol=1e-6)
        program, feeds, _ = static.load_inference_model(os.path.join(DATA, "resize_pad"), exe)  # no .pdiparams
        assert feeds == ["x", "v"]


def test_mistakes_are_named(tmp_path):
    with static.scope_guard(static.global_scope().__class__()):
        main, x, out, exe, feed, _ = _model()
        with pytest.raises(PeError, match="must name files"):
            static.save_inference_model(str(tmp_path), [x], [out], exe, program=main)
        with pytest.raises(TypeError, match=r"unexpected keyword arguments \['main_program'\]"):
            static.save_inference_model(str(tmp_path / "m"), [x], [out], exe, main_program=main)
        other = static.Program()
        with static.program_guard(other, static.Program()), fluid.unique_name.guard():
            static.nn.fc(static.nn.fc(static.data("x", [None, 4]), 7), 3)  # fc_0.b_0 [7]; the bytes' fc_0.b_0 is
            # whichever fc the process named fc_0 first (main's names follow the layers built before it)
        data = static.serialize_persistables([x], [out], exe, program=main)
        with pytest.raises(
            PeError, match=r"'fc_0.b_0' in deserialize_persistables has shape \[\d+\], the program expects \[7\]"
        ):
            static.deserialize_persistables(other, data, exe)
        with pytest.raises(PeError, match="does not exist"):
            static.load_from_file(str(tmp_path / "absent"))
