# CPU per picture of the content engine's parts, through its C surface (no vidorient binary, no
# OpenCV for Python): the scene's four turns (four passes of the picture alone, as ContentEngine
# shows them first), by the engine's own depthwise convolutions and by OpenCV's
# (VO_CONTENT_OPENCV_CONVOLUTIONS); dlib's faces on the four turns; an engine's start-up, first and
# second in one process, and the first face search (which deserializes dlib's detector).
# Three of the shared Landscape_*.jpg (../shared/media) scaled to 448x336, as ContentJudge judges
# a 4:3 photo; rounds interleaved so that the machine's load hits all alike.
#   python3 bench/content-engine-parts.py .build/debug/libVidorientContentEngine.so \
#       .build-models/scene-efficientnet-lite0-upright.onnx THREADS ROUNDS
import ctypes, sys, time, subprocess
import numpy as np
lib, model, threads, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
L = ctypes.CDLL(lib)
L.vo_content_engine_create.restype = ctypes.c_void_p
L.vo_content_engine_create.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
L.vo_content_engine_create_with.restype = ctypes.c_void_p
L.vo_content_engine_create_with.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
args = [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int] * 5 + [ctypes.POINTER(ctypes.c_float), ctypes.c_char_p, ctypes.c_size_t]
L.vo_content_scene.argtypes = args
class Face(ctypes.Structure): _fields_ = [(n, ctypes.c_float) for n in ("x", "y", "width", "height", "score")]
L.vo_content_faces.argtypes = [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int] * 5 + [ctypes.c_float, ctypes.POINTER(Face), ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
L.vo_content_set_threads(threads)
err = ctypes.create_string_buffer(600)
t = time.process_time(); e = L.vo_content_engine_create(model.encode(), err, 600); first = time.process_time() - t
t = time.process_time(); e2 = L.vo_content_engine_create(model.encode(), err, 600); second = time.process_time() - t
opencv = L.vo_content_engine_create_with(model.encode(), 1, err, 600)  # VO_CONTENT_OPENCV_CONVOLUTIONS
assert e and e2 and opencv, err.value
pics = []
for i in range(3):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", f"../shared/media/Landscape_{i}.jpg", "-vf", "scale=448:336", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], capture_output=True).stdout
    pics.append(np.frombuffer(raw, np.uint8).reshape(336, 448, 3).copy())
turned = lambda p, k: np.ascontiguousarray(np.rot90(p, -k))
def scene(engine):
    def passes(p):
        for k in range(4):
            q = turned(p, k); h, w = q.shape[:2]; out = (ctypes.c_float * 1280)()
            assert L.vo_content_scene(engine, q.ctypes.data, w, h, w * 3, 160, 0, out, err, 600) == 0
    return passes
def faces(p):
    for k in range(4):
        q = turned(p, k); h, w = q.shape[:2]; found = (Face * 64)()
        assert L.vo_content_faces(e, q.ctypes.data, w, h, w * 3, 240, 1, -0.5, found, 64, err, 600) >= 0
q = pics[0]; found = (Face * 64)()
t = time.process_time()
assert L.vo_content_faces(e2, q.ctypes.data, 448, 336, 448 * 3, 240, 1, -0.5, found, 64, err, 600) >= 0
first_faces = time.process_time() - t
results = {}
for r in range(rounds):  # interleaved, so load changes hit all alike
    for name, f in [("scene, 4 turns, own depthwise", scene(e)), ("scene, 4 turns, OpenCV's convolutions", scene(opencv)), ("faces, 4 turns", faces)]:
        t = time.process_time()
        for p in pics: f(p)
        results.setdefault(name, []).append((time.process_time() - t) / len(pics))
for name, v in results.items():
    v = sorted(v[1:] if len(v) > 2 else v)
    print(f"threads {threads}: {name}: median {v[len(v)//2]*1000:.1f} ms CPU per picture (min {v[0]*1000:.1f})")
print(f"threads {threads}: engine create {first*1000:.0f} ms CPU, a second engine {second*1000:.0f} ms; "
      f"a first face search (detector deserialized) {first_faces*1000:.0f} ms")
