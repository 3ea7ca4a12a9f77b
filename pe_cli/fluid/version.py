"""``paddle.version``: the release a program sees, in Paddle's fields. A Fluid 1.x program sees Fluid 1.8.5, the
release whose API pe follows; a Paddle 2.x program run by ``pe fluid`` (pe_cli/fluid/runner.py decides from the
script) sees Paddle 2.6.2, whose semantics its ops compute (framework/program_release.py), so that
``paddle.__version__`` and every ``paddle.version`` field answer alike (docs/COMPAT.md, "The version a program
sees"). ``fluid.require_version`` compares with ``major``, ``minor``, ``patch`` and ``rc`` as they are at the
call (a program may set them); all four '0' is a development build: a warning, no check. ``commit`` is that
release's commit in PaddlePaddle's repository (paddlepaddle 2.6.2's wheel: ``paddle.version.commit``), not one
of pe's."""

FLUID_1_8 = {
    "full_version": "1.8.5",
    "major": "1",
    "minor": "8",
    "patch": "5",
    "rc": "0",
    "istaged": False,
    "commit": "8e1712a71057e3ca06a2927ceec51c18cb171fdc",
}
# paddlepaddle 2.6.2's CPU wheel, measured: its paddle.version fields (no CUDA, XPU or CINN: 'False')
PADDLE_2_6 = {
    "full_version": "2.6.2",
    "major": "2",
    "minor": "6",
    "patch": "2",
    "rc": "0",
    "istaged": True,
    "commit": "8ce0de584c570589117e403322f3d1a0de6554e5",
}

full_version = major = minor = patch = rc = commit = None
istaged = False
paddle2 = False  # which of the two this process's program sees
with_mkl = "ON"  # the wheels' build, which pe's kernels follow where builds differ (fused_embedding_seq_pool)
cuda_version = cudnn_version = xpu_version = xpu_xccl_version = cinn_version = "False"


def follow(paddle_2):
    """The fields of Paddle 2.6.2 (``paddle_2``) or of Fluid 1.8.5 from now on."""
    global paddle2, full_version, major, minor, patch, rc, istaged, commit
    paddle2 = bool(paddle_2)
    fields = PADDLE_2_6 if paddle2 else FLUID_1_8
    full_version, major, minor, patch = fields["full_version"], fields["major"], fields["minor"], fields["patch"]
    rc, istaged, commit = fields["rc"], fields["istaged"], fields["commit"]


follow(False)


def show():
    """Prints the version as the release's own ``show`` does: Fluid 1.8's fields and commit, or Paddle 2.6's
    fields of a tagged release and its build's CUDA, cuDNN, XPU and CINN versions."""
    if not paddle2:
        print(
            f"full_version: {full_version}\nmajor: {major}\nminor: {minor}\npatch: {patch}\nrc: {rc}\ncommit: {commit}"
        )
        return
    print(f"full_version: {full_version}\nmajor: {major}\nminor: {minor}\npatch: {patch}\nrc: {rc}")
    print(f"cuda: {cuda_version}\ncudnn: {cudnn_version}\nxpu: {xpu_version}\nxpu_xccl: {xpu_xccl_version}")
    print(f"cinn: {cinn_version}")


def mkl():
    return with_mkl


def cuda():
    return cuda_version


def cudnn():
    return cudnn_version


def xpu():
    return xpu_version


def xpu_xccl():
    return xpu_xccl_version


def cinn():
    return cinn_version
