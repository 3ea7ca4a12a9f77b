"""Which release's rules a program's Variable operators follow (``a / b``, ``a + 1.5``): Fluid 1.8's,
or Paddle 2.6's (layers/operator_promotion.py) in a program built after ``paddle.enable_static()``,
which Paddle 2.x static programs call and no Fluid 1.8 program can. Each Program records the rule
when it is made (``Program._follows_paddle2``; a clone keeps it); ``fluid.layers``' and ``paddle.*``'s
functions are the same in both."""
_paddle2 = False


def new_programs_follow_paddle2():
    return _paddle2


def follow_paddle2(flag=True):
    """The default programs and every Program made from now on follow Paddle 2.6's operator rules
    (``flag=False``: Fluid 1.8's again). Returns the previous setting."""
    global _paddle2
    from .program import default_main_program, default_startup_program
    old, _paddle2 = _paddle2, bool(flag)
    default_main_program()._follows_paddle2 = default_startup_program()._follows_paddle2 = _paddle2
    return old
