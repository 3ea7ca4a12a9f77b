"""``paddle.vision.image``: the image backend datasets decode with ('pil', or 'cv2' where OpenCV is
installed) and ``image_load``."""

__all__ = ["set_image_backend", "get_image_backend", "image_load"]

_backend = "pil"


def set_image_backend(backend):
    global _backend
    if backend not in ("pil", "cv2", "tensor"):
        raise ValueError(f"Expected backend are one of ['pil', 'cv2', 'tensor'], but got {backend}")
    _backend = backend


def get_image_backend():
    return _backend


def image_load(path, backend=None):
    """The image at ``path``: a PIL image ('pil'), or a BGR uint8 array ('cv2')."""
    backend = backend or _backend
    if backend not in ("pil", "cv2"):
        raise ValueError(f"Expected backend are one of ['pil', 'cv2'], but got {backend}")
    if backend == "pil":
        from PIL import Image

        return Image.open(path)
    import cv2

    return cv2.imread(path)
