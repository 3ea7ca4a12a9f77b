# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_default_scope_funcs.py @ 13b99ae61cc1acf527798e2e76039daf63062fdf
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`.
from paddle.fluid.default_scope_funcs import (
    enter_local_scope,
    find_var,
    get_cur_scope,
    leave_local_scope,
    scoped_function,
    var,
)

assert get_cur_scope() is not None
assert find_var("test") is None

var_a = var("var_a")
assert var_a is not None
assert get_cur_scope().find_var("var_a") is not None
enter_local_scope()
assert get_cur_scope().find_var("var_a") is not None
leave_local_scope()


def __new_scope__():
    i = var("var_i")
    assert not i.is_int()
    i.set_int(10)
    assert i.is_int()
    assert i.get_int() == 10


for _ in range(10):
    scoped_function(__new_scope__)
print("ok")
