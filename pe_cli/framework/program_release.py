"""Which release a program follows where Fluid 1.8 and Paddle 2.6 differ: Fluid 1.8's, or Paddle 2.6's
in a program made after ``paddle.enable_static()``, which Paddle 2.x static programs call and no
Fluid 1.8 program can. Each Program records it when it is made (``Program._follows_paddle2``; a
clone keeps it). What differs: a Variable's operators (``a / b``, ``a + 1.5``:
layers/operator_promotion.py), a fed name the program lacks (dropped with a warning, not refused:
executor/feeding.py) and 0-D parameters (allowed). ``fluid.layers``' and ``paddle.*``'s functions
build the same ops in both."""
_paddle2 = False


def new_programs_follow_paddle2():
    return _paddle2


def follow_paddle2(flag=True, programs=()):
    """Every Program made from now on, and ``programs`` (the default ones, made at import), follow
    Paddle 2.6 (``flag=False``: Fluid 1.8 again). Returns the previous setting."""
    global _paddle2
    old, _paddle2 = _paddle2, bool(flag)
    for program in programs:
        program._follows_paddle2 = _paddle2
    return old
