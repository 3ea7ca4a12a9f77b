"""Fluid 1.8's behaviours around the executor, feeding, readers and data that Paddle's unit tests and
the book/models programs rely on (issue 52): what a fetch of a LoDTensorArray returns, the
TypeErrors of create_parameter and data, float16 parameters' initialization, places' ``_type``,
``keep_data_loader_order``, ``DataLoader.from_dataset`` and a few small names."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.fluid import core
from pe_cli.fluid.reader import keep_data_loader_order
from pe_cli.paddle.check_import_scipy import check_import_scipy


def _guarded():
    main, startup = fluid.Program(), fluid.Program()
    return main, startup, fluid.program_guard(main, startup)


def test_fetching_a_tensor_array_gives_its_arrays():
    main, startup, guard = _guarded()
    with guard:
        i = fluid.layers.zeros(shape=[1], dtype="int64")
        a = fluid.layers.data(name="a", shape=[3], dtype="float32")
        array = fluid.layers.array_write(x=a, i=i)
        doubled = fluid.layers.scale(a, scale=2.0)
        fluid.layers.array_write(x=doubled, i=fluid.layers.increment(i), array=array)
    exe = fluid.Executor(fluid.CPUPlace())
    a_np = np.arange(6, dtype="float32").reshape(2, 3)
    (out,) = exe.run(main, feed={"a": a_np}, fetch_list=[array], scope=fluid.Scope())
    assert isinstance(out, list) and len(out) == 2
    np.testing.assert_array_equal(out[0], a_np)
    np.testing.assert_array_equal(out[1], 2 * a_np)
    (tensors,) = exe.run(main, feed={"a": a_np}, fetch_list=[array], scope=fluid.Scope(), return_numpy=False)
    assert isinstance(tensors, fluid.LoDTensorArray)
    np.testing.assert_array_equal(np.array(tensors[1]), 2 * a_np)


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: fluid.layers.create_parameter(1, np.float32),
            r"create_parameter: shape must be list\|tuple\|ndarray, got int",
        ),
        (
            lambda: fluid.layers.create_parameter([1.0, 2.0], "float32"),
            r"create_parameter: item of shape must be int\|uint8\|int8\|int16\|int32\|int64, got float",
        ),
        (
            lambda: fluid.layers.create_parameter([1, 2], "complex64"),
            "create_parameter: the data type of dtype is complex64; it must be one of bool, float16, float32,",
        ),
        (
            lambda: fluid.layers.create_parameter([1, 2], np.float32, attr=np.arange(6)),
            r"create_parameter: attr must be NoneType\|ParamAttr, got ndarray",
        ),
        (
            lambda: fluid.layers.create_parameter([1, 2], np.float32, default_initializer=np.arange(6)),
            r"create_parameter: default_initializer must be NoneType\|Initializer, got ndarray",
        ),
        (lambda: fluid.data(name=1, shape=[2, 25], dtype="bool"), r"data: name must be bytes\|str, got int"),
        (lambda: fluid.data(name="d", shape=2, dtype="bool"), r"data: shape must be list\|tuple, got int"),
        (lambda: fluid.layers.data(name=1, shape=[2, 25], dtype="bool"), r"data: name must be bytes\|str, got int"),
        (lambda: fluid.layers.data(name="d", shape=2, dtype="bool"), r"data: shape must be list\|tuple, got int"),
    ],
)
def test_bad_argument_types_are_type_errors(call, message):
    with _guarded()[2], pytest.raises(TypeError, match=message):
        call()


def test_create_parameter_takes_numpy_integers_in_its_shape():
    with _guarded()[2]:
        w = fluid.layers.create_parameter(np.array([2, 3]), "float32")
    assert list(w.shape) == [2, 3]


def test_float16_parameters_are_filled_through_a_float32_temporary():
    main, startup, guard = _guarded()
    with guard:
        block = startup.global_block()
        block.create_parameter(
            name="w", shape=[2, 3], dtype="float16", initializer=fluid.initializer.ConstantInitializer(1.5)
        )
    assert [op.type for op in block.ops] == ["fill_constant", "cast"]
    assert block.ops[0].attr("dtype") == "float32" and block.ops[1].attr("out_dtype") == "float16"
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    value = np.array(scope.find_var("w").get_tensor())
    assert value.dtype == np.float16 and (value == 1.5).all()


def test_weighted_average_takes_a_fetched_batch_size():
    avg = fluid.average.WeightedAverage()
    avg.add(value=np.array([1.0]), weight=np.array([2]))
    avg.add(value=4.0, weight=1)
    assert float(avg.eval()[0]) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="weight"):
        avg.add(value=1.0, weight=np.array([1, 2]))


def test_variable_info_and_place_types():
    with _guarded()[2]:
        var = fluid.layers.create_global_var([1], np.random.randn(1), "float32")
    var._set_info("name", "test")
    assert var._get_info("name") == "test" and var._get_info("not_there") is None
    assert fluid.CPUPlace()._type() != fluid.CUDAPlace(0)._type() != fluid.CUDAPinnedPlace()._type()
    held = core.Place()
    held.set_place(fluid.CPUPlace())
    assert held._type() == fluid.CPUPlace()._type() and held._equals(fluid.CPUPlace())


def test_keep_data_loader_order_is_a_switch():
    assert keep_data_loader_order() is True
    keep_data_loader_order(False)
    try:
        assert keep_data_loader_order() is False
    finally:
        keep_data_loader_order(True)


def test_check_import_scipy_explains_a_dll_failure(monkeypatch):
    import builtins

    def failing(name, *args, **kwargs):
        raise ImportError("DLL load failed: the module could not be found")

    check_import_scipy("posix")  # another OS: nothing is imported
    monkeypatch.setattr(builtins, "__import__", failing)
    with pytest.raises(ImportError, match="Redistributable"):
        check_import_scipy("nt")


def _write_files(tmp_path, lines_per_file):
    files = []
    for f, count in enumerate(lines_per_file):
        path = tmp_path / f"part{f}.txt"
        path.write_text(
            "".join(f"6 {' '.join(str(f * 100 + n + k) for k in range(6))} 1 {n % 3}\n" for n in range(count))
        )
        files.append(str(path))
    return files


@pytest.mark.parametrize("kind", ["QueueDataset", "InMemoryDataset"])
def test_data_loader_from_dataset_gives_each_place_its_share(tmp_path, kind):
    main, startup, guard = _guarded()
    with guard:
        image = fluid.layers.data(name="image", shape=[2, 3], dtype="float32")
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    dataset = fluid.DatasetFactory().create_dataset(kind)
    dataset.set_batch_size(4)
    dataset.set_use_var([image, label])
    dataset.set_filelist(_write_files(tmp_path, [10, 10]))
    if kind == "InMemoryDataset":
        dataset.load_into_memory()
    places = fluid.cpu_places(2)
    kept = [
        [d[0]["image"].shape()[0], d[1]["image"].shape()[0]]
        for d in fluid.io.DataLoader.from_dataset(dataset, places, drop_last=False)
    ]
    assert kept == [[4, 4], [4, 4], [2, 2]]
    steps = list(fluid.io.DataLoader.from_dataset(dataset, places, drop_last=True))
    assert len(steps) == 2
    for step in steps:
        for feed, place in zip(step, places):
            assert feed["image"].shape() == [4, 2, 3] and feed["label"].shape() == [4, 1]
            assert feed["image"]._place()._equals(place)
    if kind == "QueueDataset":  # place 0 reads the first file, place 1 the second
        assert np.array(steps[0][0]["image"])[0, 0, 0] == 0 and np.array(steps[0][1]["image"])[0, 0, 0] == 100
    with pytest.raises(AssertionError, match="not less than place number"):
        fluid.io.DataLoader.from_dataset(dataset, fluid.cpu_places(3))


def test_layers_data_feeds_are_not_checked_but_fluid_data_feeds_are():
    main, startup, guard = _guarded()
    with guard:
        a = fluid.layers.data(name="a", shape=[1], dtype="float32")
        b = fluid.data(name="b", shape=[None, 1], dtype="float32")
        doubled = fluid.layers.scale(a, scale=2.0)
        kept = fluid.layers.scale(b, scale=1.0)
    exe = fluid.Executor(fluid.CPUPlace())
    a_np = np.array([3, 4, 10], "float64")  # Fluid feeds it as it is: shape [3], not [-1, 1]
    (out,) = exe.run(main, feed={"a": a_np, "b": np.ones((3, 1), "float32")}, fetch_list=[doubled])
    assert out.shape == (3,) and out.dtype == np.float32 and (out == 2 * a_np).all()
    from pe_cli.base.errors import FeedError

    with pytest.raises(FeedError, match="'b': expected shape"):
        exe.run(main, feed={"a": a_np, "b": np.ones((3, 1, 1), "float32")}, fetch_list=[kept])
    with pytest.raises(ValueError, match="'b': expected dtype float32"):
        exe.run(main, feed={"a": a_np, "b": np.ones((3, 1))}, fetch_list=[kept])


def test_integer_variable_divided_by_a_number_stays_an_integer_division():
    main, startup, guard = _guarded()
    with guard:
        a = fluid.layers.data(name="a", shape=[1], dtype="int64")
        b = a / 7
    a_np = np.array([3, 4, 10, 14, 9, 18], "int64")
    (out,) = fluid.Executor(fluid.CPUPlace()).run(main, feed={"a": a_np}, fetch_list=[b])
    assert b.dtype == "int64"
    np.testing.assert_array_equal(out, a_np // 7)


def test_square_error_cost_of_tensors_whose_shape_is_known_when_fed():
    main, startup, guard = _guarded()
    with guard:
        x = fluid.layers.create_tensor(dtype="float32", name="input")
        y = fluid.layers.create_tensor(dtype="float32", name="label")
        cost = fluid.layers.square_error_cost(input=x, label=y)
        with pytest.raises(TypeError, match="square_error_cost: input must be Variable, got list"):
            fluid.layers.square_error_cost([256, 3], y)
    x_np, y_np = np.full((2, 3), 0.5, "float32"), np.full((2, 3), 0.25, "float32")
    (out,) = fluid.Executor(fluid.CPUPlace()).run(main, feed={"input": x_np, "label": y_np}, fetch_list=[cost])
    np.testing.assert_allclose(out, (x_np - y_np) ** 2)


def test_paddle_randn_takes_fluid_18s_out_device_and_checks():
    import pe_cli.paddle as paddle

    main, startup, guard = _guarded()
    with guard:
        target = fluid.layers.fill_constant(shape=[200, 50], dtype="float32", value=0)
        paddle.randn(shape=[200, 50], out=target, dtype="float32", device="cpu")
        with pytest.raises(AssertionError, match=r"The size of argument\(shape\) can't be zero\."):
            paddle.randn(shape=[])
        with pytest.raises(TypeError, match="randn: the type of 'shape' must be list or tuple, but received int"):
            paddle.randn(shape=1)
        with pytest.raises(TypeError, match="randn: dtype must be one of float32, float64, got int32"):
            paddle.randn(shape=[1, 2], dtype="int32")
    (out,) = fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=[target])
    assert abs(out.mean()) < 0.1 and abs(out.std() - 1) < 0.1


def test_save_inference_model_without_parameters_warns(tmp_path):
    main, startup, guard = _guarded()
    with guard:
        data = fluid.layers.data(name="data", shape=[-1, 1], dtype="float32", append_batch_size=False)
        plus = data + 1
    exe = fluid.Executor(fluid.CPUPlace())
    with pytest.warns(UserWarning, match="no variable in your model"):
        fluid.io.save_inference_model(
            str(tmp_path / "m"),
            ["data"],
            [plus],
            exe,
            main_program=main,
            model_filename="model",
            params_filename="params",
        )
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == ["model"]
    program, feeds, fetches = fluid.io.load_inference_model(str(tmp_path / "m"), exe, model_filename="model")
    (out,) = exe.run(program, feed={"data": np.ones((2, 1), "float32")}, fetch_list=fetches)
    np.testing.assert_array_equal(out, np.full((2, 1), 2.0))


def test_a_reader_that_raises_is_enforce_not_met_at_the_run():
    main, startup, guard = _guarded()
    with guard:
        image = fluid.data(name="image", dtype="float32", shape=[None, 3])
        reader = fluid.io.PyReader(feed_list=[image], capacity=2, iterable=False)
        doubled = image * 2

    def failing():
        yield [np.ones(3, "float32")]
        raise ValueError("corrupt record")

    reader.decorate_sample_generator(failing, batch_size=1)
    exe = fluid.Executor(fluid.CPUPlace())
    reader.start()
    exe.run(main, fetch_list=[doubled])
    with pytest.raises(core.EnforceNotMet, match="corrupt record"):
        exe.run(main, fetch_list=[doubled])
    reader.reset()


def test_a_data_loader_without_drop_last_feeds_its_last_partial_step():
    main, startup, guard = _guarded()
    with guard:
        x = fluid.data(name="x", shape=[None, 1], dtype="float32")
        loader = fluid.io.DataLoader.from_generator(feed_list=[x], capacity=4, iterable=True, drop_last=False)
        doubled = fluid.layers.scale(x, scale=2.0)
    places = fluid.cpu_places(2)
    loader.set_batch_generator(lambda: ([np.full((2, 1), i, "float32")] for i in range(3)), places=places)
    exe = fluid.Executor(fluid.CPUPlace())
    compiled = fluid.CompiledProgram(main).with_data_parallel(places=places)
    seen = []
    for data in loader():
        (out,) = exe.run(compiled, feed=data, fetch_list=[doubled])
        seen.append(out.reshape(-1).tolist())
    assert seen == [[0, 0, 2, 2], [4, 4]]  # 3 batches on 2 places: the last step has one
    # a fixed first dimension is checked per device, as Fluid's: [2] rows of a [1] variable on 2 places
    main, startup, guard = _guarded()
    with guard:
        lr = fluid.data(name="lr", shape=[1], dtype="float32")
        lr.persistable = True
        shifted = fluid.layers.relu(lr)
    compiled = fluid.CompiledProgram(main).with_data_parallel(places=places)
    (out,) = exe.run(compiled, feed={"lr": np.array([0.5, -1.0], "float32")}, fetch_list=[shifted])
    np.testing.assert_array_equal(out, [0.5, 0.0])
