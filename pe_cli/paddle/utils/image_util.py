"""``paddle.utils.image_util``: Paddle's old image helpers over numpy and PIL: resize the short side,
flip, crop (centre or random, padded when the image is smaller), decode a JPEG, subtract a mean,
oversample ten crops, and ImageTransformer (transpose, channel swap, mean). Images are CHW (color)
or HW arrays. (Fluid 1.8.5's copies use Python 2 division and StringIO, so crop_img, preprocess_img,
load_meta and decode_jpeg fail on Python 3; these compute what they meant.)"""

import io

import numpy as np

from ...fluid.unsupported import optional_module

Image = optional_module("PIL.Image", "Pillow")
StringIO = io.BytesIO  # what the JPEG bytes are read through


def resize_image(img, target_size):
    """A PIL image scaled so its shorter side is ``target_size``."""
    percent = target_size / float(min(img.size[0], img.size[1]))
    size = int(round(img.size[0] * percent)), int(round(img.size[1] * percent))
    return img.resize(size, Image.LANCZOS)


def flip(im):
    """The image mirrored left to right (the last axis)."""
    return im[..., ::-1]


def crop_img(im, inner_size, color=True, test=True):
    """An ``inner_size`` square of the image (CHW when ``color``, else HW), padded with zeros to at
    least that size: the centre when ``test``, else a random square, mirrored half of the time."""
    im = im if color else im.astype("float32")
    h_axis = 1 if color else 0
    height, width = max(inner_size, im.shape[h_axis]), max(inner_size, im.shape[h_axis + 1])
    padded = np.zeros(((3,) if color else ()) + (height, width))
    y0, x0 = (height - im.shape[h_axis]) // 2, (width - im.shape[h_axis + 1]) // 2
    padded[..., y0 : y0 + im.shape[h_axis], x0 : x0 + im.shape[h_axis + 1]] = im
    if test:
        y, x = (height - inner_size) // 2, (width - inner_size) // 2
    else:
        y, x = np.random.randint(0, height - inner_size + 1), np.random.randint(0, width - inner_size + 1)
    pic = padded[..., y : y + inner_size, x : x + inner_size]
    if not test and np.random.randint(2) == 0:
        pic = flip(pic)
    return pic


def decode_jpeg(jpeg_string):
    """The pixels of JPEG bytes (CHW for a color image)."""
    array = np.array(Image.open(StringIO(jpeg_string)))
    return np.transpose(array, (2, 0, 1)) if array.ndim == 3 else array


def preprocess_img(im, img_mean, crop_size, is_train, color=True):
    """The cropped image minus ``img_mean``, flattened."""
    pic = crop_img(im.astype("float32"), crop_size, color, not is_train)
    return (pic - img_mean).flatten()


def load_meta(meta_path, mean_img_size, crop_size, color=True):
    """The centre ``crop_size`` square of the mean image saved in ``meta_path`` (its ``data_mean``)."""
    mean = np.load(meta_path)["data_mean"]
    border = (mean_img_size - crop_size) // 2
    channels = (3,) if color else ()
    assert mean_img_size * mean_img_size * (3 if color else 1) == mean.shape[0]
    mean = mean.reshape(channels + (mean_img_size, mean_img_size))
    return mean[..., border : border + crop_size, border : border + crop_size].astype("float32")


def load_image(img_path, is_color=True):
    """The PIL image at ``img_path``, read."""
    img = Image.open(img_path)
    img.load()
    return img


def oversample(img, crop_dims):
    """Ten crops of each HWC image: the four corners and the centre, and their mirrors."""
    shape, dims = np.array(img[0].shape), np.array(crop_dims)
    boxes = [(i, j, i + dims[0], j + dims[1]) for i in (0, shape[0] - dims[0]) for j in (0, shape[1] - dims[1])]
    centre = shape[:2] / 2.0
    boxes.append(tuple(np.concatenate([centre - dims / 2.0, centre + dims / 2.0]).astype(int)))
    crops = np.empty((10 * len(img), dims[0], dims[1], shape[-1]), dtype=np.float32)
    ix = 0
    for im in img:
        for y0, x0, y1, x1 in boxes * 2:
            crops[ix] = im[y0:y1, x0:x1, :]
            ix += 1
        crops[ix - 5 : ix] = crops[ix - 5 : ix, :, ::-1, :]
    return crops


class ImageTransformer:
    """Transposes (``set_transpose``), reorders channels (``set_channel_swap``) and subtracts a mean
    (``set_mean``: per channel for a 1-D mean) in ``transformer(data)``."""

    def __init__(self, transpose=None, channel_swap=None, mean=None, is_color=True):
        self.is_color = is_color
        self.set_transpose(transpose)
        self.set_channel_swap(channel_swap)
        self.set_mean(mean)

    def set_transpose(self, order):
        assert order is None or not self.is_color or len(order) == 3
        self.transpose = order

    def set_channel_swap(self, order):
        assert order is None or not self.is_color or len(order) == 3
        self.channel_swap = order

    def set_mean(self, mean):
        if mean is not None and mean.ndim == 1:
            mean = mean[:, np.newaxis, np.newaxis]
        elif mean is not None and self.is_color:
            assert len(mean.shape) == 3
        self.mean = mean

    def transformer(self, data):
        if self.transpose is not None:
            data = data.transpose(self.transpose)
        if self.channel_swap is not None:
            data = data[self.channel_swap, :, :]
        if self.mean is not None:
            data -= self.mean
        return data
