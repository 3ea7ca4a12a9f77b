"""Data parallelism changes where the work runs, not the numbers: N devices with a global batch B
end where one device with batch B ends (10 steps, 1e-5 relative), for both reduce strategies and
each gradient scale strategy against its single-device equivalent; one device is bitwise the
sequential Executor."""

import functools

import numpy as np
import pytest

import pe_cli.fluid as fluid

from parallel_nets import batch, build, mlp, params, rel_err

STEPS = 10
BATCH = 12  # split evenly over 2, 3 and 4 devices
LR = {"mlp": 0.1, "lenet": 0.05}
C = 0.5  # the loss gradient fed under Customized

MODELS = ["mlp", "lenet"]


def feeds(model):
    return [batch(model, BATCH, seed=i) for i in range(STEPS)]


@functools.lru_cache(maxsize=None)
def sequential(model, lr, optimizer="sgd"):
    """Parameters after STEPS steps of the sequential Executor."""
    main, startup, loss = build(model, lr=lr, optimizer=optimizer)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    for feed in feeds(model):
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    return params(main, scope)


def parallel(model, devices, reduce, scale, optimizer="sgd"):
    main, startup, loss = build(model, lr=LR[model], optimizer=optimizer)
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    bs = fluid.BuildStrategy()
    bs.reduce_strategy = getattr(fluid.BuildStrategy.ReduceStrategy, reduce)
    bs.gradient_scale_strategy = getattr(fluid.BuildStrategy.GradientScaleStrategy, scale)
    pe = fluid.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, build_strategy=bs, places=[fluid.CPUPlace()] * devices
    )
    exe = fluid.Executor(fluid.CPUPlace())
    for feed in feeds(model):
        if scale == "Customized":
            feed = dict(feed, **{loss.name + "@GRAD": np.array([C], "float32")})
        (losses,) = exe.run(pe, feed=feed, fetch_list=[loss], scope=scope)
        assert losses.shape == (devices,)
    out = params(main, scope)
    for d in range(1, devices):  # every device ends with the same parameters
        for name, value in out.items():
            np.testing.assert_array_equal(pe._engine.param_scopes[d].get_array(name), value)
    return out


def equivalent_lr(model, devices, scale):
    """One device with this learning rate matches ``devices`` devices under ``scale``: the summed
    gradient is the mean (CoeffNumDevice), devices x the mean (One), or devices x C x the mean."""
    return LR[model] * {"CoeffNumDevice": 1, "One": devices, "Customized": devices * C}[scale]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("reduce", ["AllReduce", "Reduce"])
@pytest.mark.parametrize("scale", ["CoeffNumDevice", "One", "Customized"])
def test_n_devices_match_one_device(model, reduce, scale):
    for devices in (2, 3, 4):
        got = parallel(model, devices, reduce, scale)
        want = sequential(model, equivalent_lr(model, devices, scale))
        for name in want:
            assert rel_err(got[name], want[name]) <= 1e-5, (devices, name, rel_err(got[name], want[name]))


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("reduce", ["AllReduce", "Reduce"])
@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_one_device_is_bitwise_the_sequential_executor(model, reduce, optimizer):
    lr = LR[model] / (10 if optimizer == "adam" else 1)
    main, startup, loss = build(model, lr=lr, optimizer=optimizer)
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    bs = fluid.BuildStrategy()
    bs.reduce_strategy = reduce
    pe = fluid.CompiledProgram(main).with_data_parallel(loss.name, build_strategy=bs, places=[fluid.CPUPlace()])
    exe = fluid.Executor(fluid.CPUPlace())
    pe_losses = [exe.run(pe, feed=feed, fetch_list=[loss], scope=scope)[0] for feed in feeds(model)]
    seq = sequential(model, lr, optimizer)
    got = params(main, scope)
    for name in seq:
        np.testing.assert_array_equal(got[name], seq[name])
    # the losses too
    main2, startup2, loss2 = build(model, lr=lr, optimizer=optimizer)
    scope2 = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup2, scope=scope2)
    for feed, pe_loss in zip(feeds(model), pe_losses):
        np.testing.assert_array_equal(exe.run(main2, feed=feed, fetch_list=[loss2], scope=scope2)[0], pe_loss)


@pytest.mark.parametrize("optimizer", ["momentum", "adam"])
def test_optimizer_state_with_reduce_and_all_reduce(optimizer):
    """Stateful optimizers: Reduce keeps each parameter's state on its owner only; both strategies
    still match each other (and the global scope holds the state)."""
    lr = 0.01
    results = {}
    for reduce in ("AllReduce", "Reduce"):
        main, startup, loss = build("mlp", lr=lr, optimizer=optimizer)
        scope = fluid.Scope()
        fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
        bs = fluid.BuildStrategy()
        bs.reduce_strategy = reduce
        cp = fluid.CompiledProgram(main).with_data_parallel(loss.name, build_strategy=bs, places=[fluid.CPUPlace()] * 3)
        exe = fluid.Executor(fluid.CPUPlace())
        for feed in feeds("mlp"):
            exe.run(cp, feed=feed, fetch_list=[loss], scope=scope)
        results[reduce] = {
            v.name: np.array(scope.get_array(v.name))
            for v in main.list_vars()
            if v.persistable and scope.get_array(v.name) is not None
        }
    want = sequential("mlp", lr, optimizer)
    for reduce, got in results.items():
        for name in want:
            assert rel_err(got[name], want[name]) <= 1e-5, (reduce, name)
    for name, value in results["AllReduce"].items():
        assert rel_err(results["Reduce"][name], value) <= 1e-5, name


@pytest.mark.parametrize("reduce", ["AllReduce", "Reduce"])
def test_global_norm_clip_and_weight_decay(reduce):
    """Clipping by the global norm reads every gradient: under Reduce the per-gradient norms, computed
    on each owner, are broadcast before they are summed. Matches one device."""

    def run(devices):
        main, startup = fluid.Program(), fluid.Program()
        main.random_seed = startup.random_seed = 3
        with fluid.program_guard(main, startup), fluid.unique_name.guard():
            x = fluid.layers.data(name="x", shape=[8])
            label = fluid.layers.data(name="label", shape=[1], dtype="int64")
            loss = mlp(x, label)
            fluid.optimizer.Momentum(
                learning_rate=0.5,
                momentum=0.9,
                grad_clip=fluid.clip.GradientClipByGlobalNorm(0.1),
                regularization=fluid.regularizer.L2Decay(0.01),
            ).minimize(loss)
        scope = fluid.Scope()
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup, scope=scope)
        bs = fluid.BuildStrategy()
        bs.reduce_strategy = reduce
        cp = fluid.CompiledProgram(main).with_data_parallel(
            loss.name, build_strategy=bs, places=[fluid.CPUPlace()] * devices
        )
        for feed in feeds("mlp"):
            exe.run(cp, feed=feed, fetch_list=[loss], scope=scope)
        return params(main, scope)

    want, got = run(1), run(3)
    for name in want:
        assert rel_err(got[name], want[name]) <= 1e-5, name
