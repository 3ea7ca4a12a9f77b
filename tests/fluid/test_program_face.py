"""Program's Fluid internals that Paddle's unittests call: random_seed checked and the global seed
(paddle.framework.manual_seed), _copy_param_info_from, and _prune_with_input's ValueErrors."""

import pytest

import pe_cli.fluid as fluid
from pe_cli.framework import Parameter
from pe_cli.paddle.framework import manual_seed


def test_random_seed_is_an_int_and_manual_seed_reaches_new_programs():
    with pytest.raises(ValueError, match="must be an integer"):
        fluid.Program().random_seed = "seed"
    assert fluid.Program().random_seed == 0
    main, startup = fluid.Program(), fluid.Program()
    try:
        with fluid.program_guard(main, startup):
            manual_seed(102)
            assert (fluid.Program().random_seed, main.random_seed, startup.random_seed) == (102, 102, 102)
    finally:
        fluid.Program().global_seed(0)
    assert fluid.Program().random_seed == 0


def _net():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data(name="x", shape=[None, 3], dtype="float32")
        hidden = fluid.layers.fc(x, size=2, param_attr=fluid.ParamAttr(name="w", learning_rate=0.5))
        loss = fluid.layers.mean(hidden)
    return main, hidden, loss


def test_copy_param_info_from_gives_a_parsed_copy_its_parameters_back():
    main, _, _ = _net()
    parsed = fluid.Program.parse_from_string(main.desc.serialize_to_string())
    assert not isinstance(parsed.global_block().var("w"), Parameter)
    parsed._copy_param_info_from(main)
    w = parsed.global_block().var("w")
    assert isinstance(w, Parameter) and w.optimize_attr["learning_rate"] == 0.5 and w.shape == (3, 2)
    with pytest.raises(
        TypeError,
        match=r"Function Program\._copy_param_info_from\(\) needs to pass in a source Program, but received <class 'str'>",
    ):
        parsed._copy_param_info_from("program")
    with pytest.raises(
        TypeError,
        match=r"Function Program\._copy_param_info_from\(\) needs to pass in a source Program, but received <class 'str'>",
    ):
        parsed._copy_dist_param_info_from("program")


def test_prune_with_input_checks_its_arguments():
    main, hidden, loss = _net()
    pruned = main._prune_with_input(["x"], [hidden])
    assert [op.type for op in pruned.global_block().ops] == ["mul", "elementwise_add"]
    with pytest.raises(ValueError, match="feeded_var_names of Program._prune_with_input"):
        main._prune_with_input([2, 3], [loss])
    with pytest.raises(ValueError, match="All targets of Program._prune_with_input"):
        main._prune(targets=None)
