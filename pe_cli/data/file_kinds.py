"""What a data file is, read from its first bytes: the kinds pe reads (NPY, NPZ, IDX, gzip-compressed
IDX, text) and the ones people give it by mistake (an image, an archive, a pickle, a PDF), so that an
error names what was found (``x.png is a PNG image; ...``) instead of the format pe tried last.

The bytes decide; the name only where they cannot (a zip is an NPZ archive when its members are .npy
files or its name ends in .npz).
"""

import os as os
import gzip
import zipfile
import zlib

NPY, NPZ, IDX, GZIP_IDX = "an NPY array", "an NPZ archive", "an IDX file", "a gzip-compressed IDX file"
EMPTY, TEXT, UNKNOWN = "an empty file", "a text file", "a binary file of no kind pe knows"
ZIPS = (NPZ, "a zip archive", "a damaged zip archive")
IMAGES = ("a PNG image", "a JPEG image", "a GIF image", "a WebP image", "a BMP image")
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"\x93NUMPY", NPY),
    (b"%PDF", "a PDF document"),
    (b"\x89HDF\r\n\x1a\n", "an HDF5 file"),
    (b"BZh", "a bzip2-compressed file"),
    (b"\xfd7zXZ\x00", "an xz-compressed file"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x28\xb5\x2f\xfd", "a zstd-compressed file"),
)
_IDX_TYPES = (0x08, 0x09, 0x0B, 0x0C, 0x0D, 0x0E)  # the IDX value types (idx.py reads each)
_PEEK = 512


def sniff(path):
    """A phrase naming what the regular file at ``path`` holds ("a PNG image", NPY, IDX, ...)."""
    with open(path, "rb") as f:
        head = f.read(_PEEK)
    if not head:
        return EMPTY
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "a WebP image"
    if head[:2] == b"BM" and path.lower().endswith(".bmp"):
        return "a BMP image"
    if head[:2] == b"PK":
        return _zip_kind(path)
    if head[:2] == b"\x1f\x8b":
        return GZIP_IDX if _is_idx(_gunzipped_head(path)) else "a gzip-compressed file (not IDX inside)"
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return "a Python pickle"
    if _is_idx(head):
        return IDX
    return TEXT if _is_text(head) else UNKNOWN


def refusal(path, accepted, what):
    """``"x.png is a PNG image, not <what>"`` where the file's bytes are none of the kinds
    ``accepted``; else None (the reader then reads it, and words its own errors)."""
    found = sniff(path)
    return None if found in accepted else f"{path} is {found}, not {what}"


def _is_idx(head):
    return len(head) >= 4 and head[0] == 0 and head[1] == 0 and head[2] in _IDX_TYPES and 1 <= head[3] <= 8


def _gunzipped_head(path):
    try:
        with gzip.open(path, "rb") as f:
            return f.read(4)
    except (OSError, EOFError, zlib.error):
        return b""


def _zip_kind(path):
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
    except (OSError, zipfile.BadZipFile):
        return "a damaged zip archive"
    if path.lower().endswith(".npz") or (names and all(n.endswith(".npy") for n in names)):
        return NPZ
    return "a zip archive"


def _is_text(head):
    if b"\x00" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as e:
        return e.start >= len(head) - 3  # a character cut at the end of the peek
    return True
