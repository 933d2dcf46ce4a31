"""The content engine (libVidorientContentEngine.so) from Python, through its C surface
(Sources/VidorientContentEngine/include/vidorient_content.h), for training the upright head and
measuring it: the same library, the same network and the same scaling as vidorient runs.

And the pictures as vidorient judges them: a photo decoded with its EXIF orientation applied,
scaled to fit ContentJudge.pictureSide (448) with area averaging, then turned."""
import csv
import ctypes
import os
import sys

import cv2
import numpy as np

FEATURES = 1280
PICTURE_SIDE = 448  # ContentJudge.pictureSide
FACE_FLOOR = -0.5  # ContentPolicy.faceFloor


class _Face(ctypes.Structure):
    _fields_ = [(name, ctypes.c_float) for name in ("x", "y", "width", "height", "score")]


class Engine:
    def __init__(self, library, model, threads=1):
        lib = ctypes.CDLL(library)
        lib.vo_content_engine_create.restype = ctypes.c_void_p
        lib.vo_content_engine_create.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.vo_content_engine_destroy.argtypes = [ctypes.c_void_p]
        lib.vo_content_faces.argtypes = [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int] * 5 + [
            ctypes.c_float, ctypes.POINTER(_Face), ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
        lib.vo_content_scene.argtypes = [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int] * 5 + [
            ctypes.POINTER(ctypes.c_float), ctypes.c_char_p, ctypes.c_size_t]
        lib.vo_content_set_threads(threads)
        self.lib = lib
        error = ctypes.create_string_buffer(600)
        self.engine = lib.vo_content_engine_create(model.encode(), error, 600)
        if not self.engine:
            raise RuntimeError(error.value.decode())

    def faces(self, rgb, longest_side, upsample, floor=FACE_FLOOR):
        """Every face's score, best first: the picture scaled to `longest_side`, upsampled
        `upsample` times (the setting vidorient uses is UprightHead.faceSide and faceUpsample)."""
        rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
        height, width = rgb.shape[:2]
        found, error = (_Face * 64)(), ctypes.create_string_buffer(600)
        count = self.lib.vo_content_faces(self.engine, rgb.ctypes.data, width, height, width * 3, longest_side,
                                          upsample, floor, found, 64, error, 600)
        if count < 0:
            raise RuntimeError(error.value.decode())
        return [face.score for face in found[:count]]

    def scene(self, rgb, side=224, mirror=True):
        """Features of the picture's centred square at side × side, and of its mirror image: 2 × 1280
        (1 × 1280 without the mirror)."""
        rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
        height, width = rgb.shape[:2]
        passes = 2 if mirror else 1
        out, error = np.zeros(passes * FEATURES, dtype=np.float32), ctypes.create_string_buffer(600)
        status = self.lib.vo_content_scene(self.engine, rgb.ctypes.data, width, height, width * 3, side, int(mirror),
                                           out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), error, 600)
        if status < 0:
            raise RuntimeError(error.value.decode())
        return out.reshape(passes, FEATURES)


def displayed_picture(path, side=PICTURE_SIDE, longest_side=None):
    """The photo as displayed (EXIF orientation applied by OpenCV's decoder), RGB, fit in side × side.
    Given the stored longest side, a large JPEG is decoded at 1/2, 1/4 or 1/8 (libjpeg's DCT
    scaling, as vidorient's decoder does) while that still leaves at least twice `side`."""
    flag = cv2.IMREAD_COLOR
    if longest_side:
        for factor, reduced in ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4),
                                (2, cv2.IMREAD_REDUCED_COLOR_2)):
            if longest_side / factor >= 2 * side:
                flag = reduced
                break
    image = cv2.imread(path, flag)
    if image is None:
        raise ValueError(f"could not decode {path}")
    return fit(cv2.cvtColor(image, cv2.COLOR_BGR2RGB), side)


def judged_picture(path, longest_side=None, step="extract"):
    """The picture a photo's features are extracted from (displayed_picture), or None, said on
    standard error, when it cannot be decoded; None too when it is under 32 pixels on a side, as
    vidorient judges nothing that small."""
    try:
        picture = displayed_picture(path, longest_side=longest_side)
    except ValueError as error:
        print(f"{step}: skipped {error}", file=sys.stderr)
        return None
    return picture if min(picture.shape[:2]) >= 32 else None


def fit(rgb, side=PICTURE_SIDE):
    height, width = rgb.shape[:2]
    scale = min(side / width, side / height, 1.0)
    if scale < 1.0:
        rgb = cv2.resize(rgb, (max(1, round(width * scale)), max(1, round(height * scale))), interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(rgb)


def turned(rgb, k):
    """The picture turned k quarter turns clockwise (as Picture.oriented with rotation 90·k)."""
    return np.ascontiguousarray(np.rot90(rgb, -k))


def default_paths(root):
    build = os.path.join(root, ".build", "release", "libVidorientContentEngine.so")
    if not os.path.exists(build):
        build = os.path.join(root, ".build", "debug", "libVidorientContentEngine.so")
    return build, os.path.join(root, ".build-models", "scene-efficientnet-lite0-upright.onnx")


def pictures(root, pages, photos, photo_limit=0):
    """The pictures of models/photos whose `up` is known: (kind, photos.tsv row), the pages of text
    and screens of the splits `pages` ("page"), then the photos of the splits `photos` ("photo"),
    every k-th of them so that at most `photo_limit` when it is given."""
    sources = {r["id"]: r for r in csv.DictReader(open(f"{root}/models/photos/sources.tsv"), delimiter="\t")}
    rows = list(csv.DictReader(open(f"{root}/models/photos/photos.tsv"), delimiter="\t"))
    chosen = []
    for kind, splits in (("page", pages), ("photo", photos)):
        picked = [r for r in rows if sources[r["source"]]["split"] in splits and r["up"] == "yes"]
        if kind == "photo" and photo_limit and len(picked) > photo_limit:
            step = len(picked) / photo_limit
            picked = [picked[int(i * step)] for i in range(photo_limit)]
        chosen += [(kind, r) for r in picked]
    return chosen
