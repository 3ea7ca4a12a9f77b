"""No state dict loads part of a model in silence (issue 99, item 3; issue 96, item 4). Paddle 2.6.2's
behaviour, measured on the oracle (docs/COMPAT.md, "State dicts"): ``Layer.set_state_dict`` / ``set_dict``
warns ``Skip loading for bias. bias is not found in the provided dict.`` per missing key and ``... receives a
shape [2, 3], but the expected shape is [3, 2].`` for a mismatch (skipped, returned as both missing and
unexpected), and says nothing of keys it does not use; ``Program.set_state_dict`` warns of keys the program
lacks; ``set_program_state`` warns ``This list is not set, Because of Paramerter not found in program. There
are: ...``. pe warns the same and besides names the keys no variable took (and, for a ``{"model": ...,
"epoch": ...}`` dict, the key to give) and the parameters the dict left as they were; where a parameter it
does not set has no value, pe refuses in one line before setting anything. Before: pe's Layer warned of
nothing, raised a ValueError (a traceback) on a shape mismatch, and a wrapped dict loaded nothing silently."""

import os
import subprocess
import warnings

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base.errors import PeError
from pe_cli.executor.scope import Scope
from tests.cli.test_helpers import PE, REPO

W, B = np.arange(6, dtype="float32").reshape(3, 2), np.array([10, 20], "float32")


def _linear(run_startup=True):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3])
        lin = paddle.nn.Linear(3, 2)
        out = lin(x)
    scope = Scope()
    if run_startup:
        with paddle.static.scope_guard(scope):
            paddle.static.Executor(paddle.CPUPlace()).run(startup)
    return main, lin, out, scope


def _messages(fn, scope):
    with warnings.catch_warnings(record=True) as caught, paddle.static.scope_guard(scope):
        warnings.simplefilter("always")
        result = fn()
    return result, [str(w.message) for w in caught]


def test_a_missing_key_is_warned_as_paddle_warns():
    main, lin, out, scope = _linear()
    result, said = _messages(lambda: lin.set_state_dict({"weight": W}), scope)
    assert result == (["bias"], [])
    assert said == ["Skip loading for bias. bias is not found in the provided dict."]


def test_a_shape_mismatch_is_skipped_with_paddles_warning_not_a_traceback():
    main, lin, out, scope = _linear()
    with paddle.static.scope_guard(scope):
        before = lin.state_dict()["weight"]
    result, said = _messages(lambda: lin.set_state_dict({"weight": W.T.copy(), "bias": B}), scope)
    assert result == (["weight"], ["weight"])
    assert said == ["Skip loading for weight. weight receives a shape [2, 3], but the expected shape is [3, 2]."]
    with paddle.static.scope_guard(scope):
        state = lin.state_dict()
    np.testing.assert_array_equal(state["weight"], before)
    np.testing.assert_array_equal(state["bias"], B)


def test_a_wrapped_dict_names_the_key_to_give():
    main, lin, out, scope = _linear()
    result, said = _messages(lambda: lin.set_dict({"model": {"weight": W, "bias": B}, "epoch": 3}), scope)
    assert result == (["weight", "bias"], ["model", "epoch"])
    assert said[:2] == [
        "Skip loading for weight. weight is not found in the provided dict.",
        "Skip loading for bias. bias is not found in the provided dict.",
    ]
    assert said[2].endswith(
        "set_state_dict: not used, no variable has the key(s) 'model', 'epoch' ('model' holds a dict with 2 of its "
        "keys: give state_dict['model'])"
    )


def test_a_parameter_left_without_a_value_is_refused_before_anything_is_set():
    main, lin, out, scope = _linear(run_startup=False)
    with paddle.static.scope_guard(scope), pytest.raises(PeError) as e:
        lin.set_state_dict({"weight": W})
    text = str(e.value)
    assert "\n" not in text and "'bias' (linear_" in text and "have no value (the startup program has not run)" in text
    assert scope.find_var(lin.weight.name) is None or not scope.find_var(lin.weight.name).is_initialized()


def test_program_set_state_dict_names_what_it_left_and_refuses_unset_parameters():
    main, lin, out, scope = _linear()
    w_name, b_name = lin.weight.name, lin.bias.name
    _, said = _messages(lambda: main.set_state_dict({"model": {w_name: W}, "epoch": 1}), scope)
    assert "Skip loading for 'model'. Because 'model' not in the program." in said
    assert (
        f"Program.set_state_dict: the state dict does not set the parameter(s) {w_name}, {b_name}, which keep "
        f"their values ('model' holds a dict with 1 of its keys: give state_dict['model'])"
    ) in said
    main, lin, out, scope = _linear(run_startup=False)
    with paddle.static.scope_guard(scope), pytest.raises(PeError, match=r"have no value .* refuses to run"):
        main.set_state_dict({lin.weight.name: W})


def test_set_program_state_says_paddles_words_and_the_parameters_it_left():
    main, lin, out, scope = _linear()
    w_name, b_name = lin.weight.name, lin.bias.name
    _, said = _messages(lambda: paddle.static.set_program_state(main, {w_name: W, "extra": B}), scope)
    assert said == [
        "This list is not set, Because of Paramerter not found in program. There are: extra",
        f"set_program_state: the state dict does not set the parameter(s) {b_name}, which keep their values",
    ]


def _script(folder, text):
    (folder / "s.py").write_text(text)
    env = dict(os.environ, HOME=str(folder), PYTHONPATH=REPO)
    env.pop("PE_DEBUG", None)
    return subprocess.run(
        PE + ["fluid", "s.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )


_NET = """import numpy as np
import paddle
paddle.enable_static()
x = paddle.static.data('x', [None, 3])
net = paddle.nn.Linear(3, 2)
y = net(x)
exe = paddle.static.Executor(paddle.CPUPlace())
"""


def test_pe_fluid_script_with_a_shape_mismatch_warns_and_runs(tmp_path):
    proc = _script(
        tmp_path,
        _NET + "exe.run(paddle.static.default_startup_program())\n"
        "print(net.set_state_dict({'weight': np.ones([2, 3], 'float32'), 'bias': np.ones([2], 'float32')}))\n"
        "print(exe.run(feed={'x': np.ones([1, 3], 'float32')}, fetch_list=[y])[0].shape)\n",
    )
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "Skip loading for weight. weight receives a shape [2, 3], but the expected shape is [3, 2]." in proc.stderr
    assert "(['weight'], ['weight'])" in proc.stdout and "(1, 2)" in proc.stdout


def test_pe_fluid_script_loading_part_of_an_uninitialized_net_is_one_line(tmp_path):
    proc = _script(tmp_path, _NET + "net.set_state_dict({'model': {'weight': np.ones([3, 2], 'float32')}})\n")
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.strip().splitlines() if "error:" in line]
    assert len(lines) == 1 and lines[0].startswith("pe fluid: s.py:8: error: linear_0.set_state_dict: "), proc.stderr
    assert "the parameter(s) 'weight' (linear_0.w_0), 'bias' (linear_0.b_0) have no value" in lines[0]
    assert "give state_dict['model']" in lines[0]
