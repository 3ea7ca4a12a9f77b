"""``paddle.vision.datasets.DatasetFolder`` (``root/class/.../file``: (sample, class index)) and
``ImageFolder`` (every image under ``root``, no labels: [sample]), read with the image backend's
loader (PIL's RGB, or cv2 where installed) or the ``loader`` given, files taken in sorted order as
Paddle's walk gives them."""

import os

from ...io import Dataset

__all__ = ["DatasetFolder", "ImageFolder"]

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_valid_extension(filename, extensions):
    return filename.lower().endswith(tuple(x.lower() for x in extensions))


def _files(folder, extensions, is_valid_file):
    if extensions is not None and is_valid_file is not None:
        raise ValueError("Both extensions and is_valid_file cannot be not None at the same time")
    valid = is_valid_file or (lambda path: has_valid_extension(path, extensions))
    for dirpath, _, names in sorted(os.walk(folder, followlinks=True)):
        for name in sorted(names):
            path = os.path.join(dirpath, name)
            if valid(path):
                yield path


def default_loader(path):
    from PIL import Image

    with open(path, "rb") as f:
        return Image.open(f).convert("RGB")


class DatasetFolder(Dataset):
    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root, self.transform = root, transform
        if extensions is None and is_valid_file is None:
            extensions = IMG_EXTENSIONS
        classes = sorted(d.name for d in os.scandir(root) if d.is_dir())
        class_to_idx = {c: i for i, c in enumerate(classes)}
        samples = [
            (path, class_to_idx[c])
            for c in classes
            for path in _files(os.path.join(root, c), extensions, is_valid_file)
        ]
        if not samples:
            raise RuntimeError(
                f"Found 0 directories in subfolders of: {root}\nSupported extensions are: {','.join(extensions or ())}"
            )
        self.loader = default_loader if loader is None else loader
        self.extensions, self.classes, self.class_to_idx = extensions, classes, class_to_idx
        self.samples = samples
        self.targets = [s[1] for s in samples]

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target

    def __len__(self):
        return len(self.samples)


class ImageFolder(Dataset):
    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root, self.transform = root, transform
        if extensions is None and is_valid_file is None:
            extensions = IMG_EXTENSIONS
        samples = list(_files(root, extensions, is_valid_file))
        if not samples:
            raise RuntimeError(
                f"Found 0 files in subfolders of: {root}\nSupported extensions are: {','.join(extensions or ())}"
            )
        self.loader = default_loader if loader is None else loader
        self.extensions, self.samples = extensions, samples

    def __getitem__(self, index):
        sample = self.loader(self.samples[index])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self):
        return len(self.samples)
