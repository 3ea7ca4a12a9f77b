"""Where ``paddle.vision.datasets`` and ``paddle.text.datasets`` find their files: the path given,
else Paddle's cache (``~/.cache/paddle/dataset/<module>/<file>``, ``$PADDLE_DATA_HOME`` or ``$HOME``
may move it), the same files ``paddle.dataset`` reads. pe downloads nothing: an absent file is one
line naming it, the folder to put it in and where Paddle downloads it from."""

import os

from ....base.errors import PeError
from ...dataset.common import dataset_dir
from ..image import get_image_backend


def local_file(dataset, path, url, module, download):
    """``path`` where given (it must exist), else the cached file ``url`` names in ``module``'s folder."""
    if path is not None:
        if not os.path.isfile(path):
            raise PeError(f"paddle.{dataset}: {path} is absent")
        return path
    if not download:
        raise AssertionError(
            f"paddle.{dataset}: the data file is not set and downloading automatically is disabled (download=False)"
        )
    name = url.rsplit("/", 1)[-1]
    cached = os.path.join(dataset_dir(module), name)
    if os.path.isfile(cached):
        return cached
    raise PeError(
        f"paddle.{dataset}: {cached} is absent and pe downloads nothing: put {name} in "
        f"{dataset_dir(module)} (Paddle downloads it from {url})"
    )


def check_backend(dataset, backend):
    """``backend``, or paddle.vision's image backend (set_image_backend) when None: 'pil' or 'cv2'."""
    if backend is None:
        backend = get_image_backend()
    if backend not in ("pil", "cv2"):
        raise ValueError(f"Expected backend are one of ['pil', 'cv2'], but got {backend}")
    return backend
