# CPU per picture of the content engine's parts, through its C surface (no vidorient binary, no
# OpenCV for Python): the scene's four turns (four calls of two: the picture and its mirror),
# dlib's faces on the four turns, and an engine's start-up, first and second in one process.
# Three of the shared Landscape_*.jpg (../shared/media) scaled to 448x336, as ContentJudge judges
# a 4:3 photo; rounds interleaved so that the machine's load hits all alike.
#   python3 bench/content-engine-parts.py .build/debug/libVidorientContentEngine.so \
#       .build-models/scene-efficientnet-lite0.onnx THREADS ROUNDS
import ctypes, sys, time, subprocess
import numpy as np
lib, model, threads, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
L = ctypes.CDLL(lib)
L.vo_content_engine_create.restype = ctypes.c_void_p
L.vo_content_engine_create.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
args = [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int] * 5 + [ctypes.POINTER(ctypes.c_float), ctypes.c_char_p, ctypes.c_size_t]
L.vo_content_scene.argtypes = args
class Face(ctypes.Structure): _fields_ = [(n, ctypes.c_float) for n in ("x", "y", "width", "height", "score")]
L.vo_content_faces.argtypes = [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int] * 5 + [ctypes.c_float, ctypes.POINTER(Face), ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
L.vo_content_set_threads(threads)
err = ctypes.create_string_buffer(600)
t = time.process_time(); e = L.vo_content_engine_create(model.encode(), err, 600); first = time.process_time() - t
t = time.process_time(); e2 = L.vo_content_engine_create(model.encode(), err, 600); second = time.process_time() - t
pics = []
for i in range(3):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", f"../shared/media/Landscape_{i}.jpg", "-vf", "scale=448:336", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], capture_output=True).stdout
    pics.append(np.frombuffer(raw, np.uint8).reshape(336, 448, 3).copy())
turned = lambda p, k: np.ascontiguousarray(np.rot90(p, -k))
def alone(p):
    for k in range(4):
        q = turned(p, k); h, w = q.shape[:2]; out = (ctypes.c_float * 2560)()
        assert L.vo_content_scene(e, q.ctypes.data, w, h, w * 3, 160, 1, out, err, 600) == 0
def faces(p):
    for k in range(4):
        q = turned(p, k); h, w = q.shape[:2]; found = (Face * 64)()
        assert L.vo_content_faces(e, q.ctypes.data, w, h, w * 3, 240, 1, -0.5, found, 64, err, 600) >= 0
results = {}
for r in range(rounds):  # interleaved, so load changes hit all alike
    for name, f in [("scene, 4 turns", alone), ("faces, 4 turns", faces)]:
        t = time.process_time()
        for p in pics: f(p)
        results.setdefault(name, []).append((time.process_time() - t) / len(pics))
for name, v in results.items():
    v = sorted(v[1:] if len(v) > 2 else v)
    print(f"threads {threads}: {name}: median {v[len(v)//2]*1000:.1f} ms CPU per picture (min {v[0]*1000:.1f})")
print(f"threads {threads}: engine create {first*1000:.0f} ms CPU, a second engine {second*1000:.0f} ms")
