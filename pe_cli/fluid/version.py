"""``paddle.version``: the Fluid release whose API pe follows (1.8.5), in Fluid's fields.
``fluid.require_version`` compares with ``major``, ``minor``, ``patch`` and ``rc`` as they are at
the call (a program may set them); all four '0' is a development build: a warning, no check.
``commit`` is that release's commit in PaddlePaddle's repository, not one of pe's."""

full_version = "1.8.5"
major = "1"
minor = "8"
patch = "5"
rc = "0"
istaged = False
commit = "8e1712a71057e3ca06a2927ceec51c18cb171fdc"
with_mkl = "ON"  # the 1.8.5 wheel's build, which pe's kernels follow where builds differ (fused_embedding_seq_pool)


def show():
    """Prints the version, as Fluid's (the fields of a tagged release, else the commit)."""
    print(f"full_version: {full_version}\nmajor: {major}\nminor: {minor}\npatch: {patch}\nrc: {rc}\ncommit: {commit}")


def mkl():
    return with_mkl
