// The content engine: dlib's HOG frontal face detector, EfficientNet-Lite0 through OpenCV's DNN
// module, and Tesseract's and Leptonica's orientation detection, behind the C surface in
// include/vidorient_content.h.
// Built as its own shared library (libVidorientContentEngine.so) and opened on first use, never
// linked into the program. Every C++ object is owned here; no exception crosses the C surface.

#include "vidorient_content.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include <dlib/image_processing/frontal_face_detector.h>
#include <dlib/image_transforms/interpolation.h>
#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/dnn/all_layers.hpp>
#include <opencv2/dnn/layer.details.hpp>
#include <opencv2/imgproc.hpp>

#include <dlfcn.h>
#include <sys/stat.h>
#include <leptonica/allheaders.h>
#include <tesseract/capi.h>

struct vo_content_engine {
    cv::dnn::Net scene;
    // dlib's detector, copied in on the first face search: a photo the scene decides never needs it.
    dlib::frontal_face_detector faces;
    bool faces_loaded = false;
    // Tesseract, made at the first text reading (its orientation data, about 10 MB, is read then).
    TessBaseAPI *text = nullptr;
    // Tesseract's word recogniser (its `eng` data, about 4 MB, and the LSTM network in it), made at
    // the first word count.
    TessBaseAPI *words = nullptr;
    ~vo_content_engine();
};

namespace {

void say(char *error, size_t length, const std::string &message) {
    if (error != nullptr && length > 0) std::snprintf(error, length, "%s", message.c_str());
}

// Runs `body`, turning any C++ exception into -1 and one line.
template <typename Body> int guarded(char *error, size_t length, Body body) {
    try {
        return body();
    } catch (const cv::Exception &e) {
        say(error, length, "opencv: " + std::string(e.err.empty() ? e.what() : e.err));
    } catch (const std::bad_alloc &) {
        say(error, length, "out of memory");
    } catch (const std::exception &e) {
        say(error, length, e.what());
    } catch (...) {
        say(error, length, "unknown error in the content engine");
    }
    return -1;
}

bool valid(const uint8_t *rgb, int width, int height, int stride) {
    return rgb != nullptr && width > 0 && height > 0 && stride >= width * 3;
}

// `picture` scaled by `scale`, each side rounded (at least a pixel): area averaging to shrink, cubic
// interpolation to enlarge.
cv::Mat scaled(const cv::Mat &picture, double scale) {
    cv::Mat out;
    cv::resize(picture, out,
               cv::Size(std::max(1, static_cast<int>(picture.cols * scale + 0.5)),
                        std::max(1, static_cast<int>(picture.rows * scale + 0.5))),
               0, 0, scale < 1 ? cv::INTER_AREA : cv::INTER_CUBIC);
    return out;
}

// The caller's pixels as a Mat, without copying (read only).
cv::Mat wrap(const uint8_t *rgb, int width, int height, int stride) {
    return cv::Mat(height, width, CV_8UC3, const_cast<uint8_t *>(rgb), static_cast<size_t>(stride));
}

// dlib's detector, deserialized from the copy compiled into dlib once per process (about 0.35 s
// of CPU) and copied into an engine at its first face search (`vo_content_faces`): a process whose
// scene decides every picture never pays it.
const dlib::frontal_face_detector &face_detector() {
    static const dlib::frontal_face_detector prototype = dlib::get_frontal_face_detector();
    return prototype;
}

// Tesseract's C API (tesseract/capi.h), opened once per process at the first text reading: the
// engine does not link it, so a system without Tesseract still finds faces and judges scenes.
struct Tesseract {
    decltype(&TessBaseAPICreate) create = nullptr;
    decltype(&TessBaseAPIDelete) destroy = nullptr;
    decltype(&TessBaseAPISetVariable) set_variable = nullptr;
    decltype(&TessBaseAPIInit3) init = nullptr;
    decltype(&TessBaseAPISetImage) set_image = nullptr;
    decltype(&TessBaseAPIDetectOrientationScript) detect = nullptr;
    decltype(&TessBaseAPIClear) clear = nullptr;
    // For the word counts (`vo_content_word_counts`).
    decltype(&TessBaseAPISetPageSegMode) set_page_mode = nullptr;
    decltype(&TessBaseAPIRecognize) recognize = nullptr;
    decltype(&TessBaseAPIGetIterator) iterator = nullptr;
    decltype(&TessResultIteratorNext) next = nullptr;
    decltype(&TessResultIteratorGetUTF8Text) word_text = nullptr;
    decltype(&TessResultIteratorConfidence) word_confidence = nullptr;
    decltype(&TessResultIteratorDelete) delete_iterator = nullptr;
    decltype(&TessDeleteText) delete_text = nullptr;
    decltype(&TessMonitorCreate) create_monitor = nullptr;
    decltype(&TessMonitorSetDeadlineMSecs) set_deadline = nullptr;
    decltype(&TessMonitorDelete) delete_monitor = nullptr;
    // libgomp's, when Tesseract is built with OpenMP (Debian's is): one thread per recognition.
    void (*set_max_active_levels)(int) = nullptr;
    // Why there are no word counts (no English data, an old library), or empty.
    std::string words_failure;
    // Where osd.traineddata was found; empty when it was not.
    std::string data;
    // Why there is no text reading, or empty.
    std::string failure;
};

bool is_file(const std::string &path) {
    struct stat status;
    return stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode);
}

// A library the engine opens itself at its first use (Tesseract, Leptonica): the first of `sonames`
// that loads, and each function found by name; `failure` says why none loaded (the last one's
// `dlerror`).
class OpenedLibrary {
  public:
    OpenedLibrary(std::initializer_list<const char *> sonames, const char *name) {
        for (const char *soname : sonames)
            if ((handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL)) != nullptr) return;
        const char *why = dlerror();
        failure = std::string(name) + " is not installed (" + (why ? why : *sonames.begin()) + ")";
    }
    // Sets `function` to the library's function `name`; false (and `function` null) when it has none.
    template <typename Function> bool find(Function &function, const char *name) {
        function = handle == nullptr ? nullptr : reinterpret_cast<Function>(dlsym(handle, name));
        return function != nullptr;
    }
    void *handle = nullptr;
    std::string failure;
};

const Tesseract &tesseract_library() {
    static const Tesseract library = [] {
        Tesseract t;
        OpenedLibrary opened({"libtesseract.so.5", "libtesseract.so.4"}, "Tesseract");
        if (!opened.failure.empty()) {
            t.failure = opened.failure;
            return t;
        }
        bool all = true;
        auto symbol = [&](auto &function, const char *name) { all = opened.find(function, name) && all; };
        symbol(t.create, "TessBaseAPICreate");
        symbol(t.destroy, "TessBaseAPIDelete");
        symbol(t.set_variable, "TessBaseAPISetVariable");
        symbol(t.init, "TessBaseAPIInit3");
        symbol(t.set_image, "TessBaseAPISetImage");
        symbol(t.detect, "TessBaseAPIDetectOrientationScript");
        symbol(t.clear, "TessBaseAPIClear");
        if (!all) {
            t.failure = "Tesseract's library has no orientation detection (built without its legacy engine)";
            return t;
        }
        bool recognises = opened.find(t.set_page_mode, "TessBaseAPISetPageSegMode") &&
                          opened.find(t.recognize, "TessBaseAPIRecognize") &&
                          opened.find(t.iterator, "TessBaseAPIGetIterator") &&
                          opened.find(t.next, "TessResultIteratorNext") &&
                          opened.find(t.word_text, "TessResultIteratorGetUTF8Text") &&
                          opened.find(t.word_confidence, "TessResultIteratorConfidence") &&
                          opened.find(t.delete_iterator, "TessResultIteratorDelete") &&
                          opened.find(t.delete_text, "TessDeleteText") &&
                          opened.find(t.create_monitor, "TessMonitorCreate") &&
                          opened.find(t.set_deadline, "TessMonitorSetDeadlineMSecs") &&
                          opened.find(t.delete_monitor, "TessMonitorDelete");
        if (!recognises) t.words_failure = "Tesseract's library has no word recognition through its C API";
        opened.find(t.set_max_active_levels, "omp_set_max_active_levels");
        // Its data folder as Tesseract itself looks for it ($TESSDATA_PREFIX), then where Debian and
        // Ubuntu (tesseract-ocr-osd), Fedora, Arch and Alpine put it.
        std::vector<std::string> folders;
        if (const char *prefix = std::getenv("TESSDATA_PREFIX"); prefix != nullptr && *prefix != 0) {
            folders.push_back(prefix);
            folders.push_back(std::string(prefix) + "/tessdata");
        }
        for (const char *folder : {"/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
                                   "/usr/share/tessdata", "/usr/local/share/tessdata"})
            folders.push_back(folder);
        for (const auto &folder : folders) {
            if (is_file(folder + "/osd.traineddata")) {
                t.data = folder;
                if (t.words_failure.empty() && !is_file(folder + "/eng.traineddata"))
                    t.words_failure = "Tesseract's English data is not installed (no eng.traineddata in " + folder +
                                      "; Debian and Ubuntu: tesseract-ocr-eng)";
                return t;
            }
        }
        t.failure = "Tesseract's orientation data is not installed (no osd.traineddata in $TESSDATA_PREFIX or "
                    "/usr/share/tesseract-ocr/5/tessdata; Debian and Ubuntu: tesseract-ocr-osd)";
        return t;
    }();
    return library;
}

// A Tesseract handle reading `language`'s data (`osd`, `eng`; `what` names it in the error). One made
// at a time: `debug_file` is one of Tesseract's global parameters, which two workers' first readings
// would otherwise set at once. Tesseract's messages ("Too few characters", "Estimating resolution")
// go to that file, not to our standard error.
TessBaseAPI *made_tesseract(const Tesseract &library, const char *language, const char *what) {
    static std::mutex making;
    std::lock_guard<std::mutex> one(making);
    TessBaseAPI *made = library.create();
    if (made == nullptr) throw std::bad_alloc();
    library.set_variable(made, "debug_file", "/dev/null");
    if (library.init(made, library.data.c_str(), language) != 0) {
        library.destroy(made);
        throw std::runtime_error(std::string("Tesseract could not read its ") + what + " in " + library.data);
    }
    return made;
}

// Leptonica (leptonica/allheaders.h), opened once per process at the first letter-shape reading, as
// Tesseract is: the library Tesseract is built on, so it is there wherever Tesseract is.
struct Leptonica {
    decltype(&pixCreate) create = nullptr;
    decltype(&pixGetData) data = nullptr;
    decltype(&pixGetWpl) words_per_line = nullptr;
    decltype(&pixOrientDetect) detect = nullptr;
    decltype(&pixDestroy) destroy = nullptr;
    // Why there is no letter-shape reading, or empty.
    std::string failure;
};

const Leptonica &leptonica_library() {
    static const Leptonica library = [] {
        Leptonica l;
        // Debian 12 and Ubuntu 24.04 name it liblept.so.5; Leptonica 1.83 and later, libleptonica.so.6.
        OpenedLibrary opened({"liblept.so.5", "libleptonica.so.6"}, "Leptonica");
        if (!opened.failure.empty()) {
            l.failure = opened.failure;
            return l;
        }
        bool all = true;
        auto symbol = [&](auto &function, const char *name) { all = opened.find(function, name) && all; };
        symbol(l.create, "pixCreate");
        symbol(l.data, "pixGetData");
        symbol(l.words_per_line, "pixGetWpl");
        symbol(l.detect, "pixOrientDetect");
        symbol(l.destroy, "pixDestroy");
        decltype(&setMsgSeverity) severity = nullptr;
        symbol(severity, "setMsgSeverity");
        if (!all) {
            l.failure = "Leptonica's library has no orientation detection";
            return l;
        }
        // Its messages ("not enough confidence") would go to our standard error: none.
        severity(L_SEVERITY_NONE);
        return l;
    }();
    return library;
}

// A depthwise convolution (one filter per channel) of 5×5, or of 3×3 with stride 1 on a small
// picture, computed here rather than by OpenCV 4.6, whose own treats each channel as a separate
// small matrix product (its fast path is 3×3 only) and spent 44 % of a pass of EfficientNet-Lite0
// at 160 px in its nine 5×5 layers. The same sums in another order: features within a few
// millionths of OpenCV's (ContentJudgeTests holds them within 1e-4). Registered as OpenCV's
// "Convolution" for the networks this engine reads (`DepthwiseConvolution::create`), so every other
// convolution is OpenCV's own, and so is a depthwise one where OpenCV's is the faster (a 3×3 over
// more than 20×20 outputs, any 3×3 of stride 2).
class DepthwiseConvolution : public cv::dnn::Layer {
  public:
    // OpenCV's layer for `params`, or this one where it applies.
    static cv::Ptr<cv::dnn::Layer> create(cv::dnn::LayerParams &params) {
        cv::Ptr<cv::dnn::BaseConvolutionLayer> opencv = cv::dnn::ConvolutionLayer::create(params);
        if (!own_depthwise) return opencv;
        auto integer = [&](const char *name, int index, int otherwise) {
            if (!params.has(name)) return otherwise;
            const cv::dnn::DictValue &value = params.get(name);
            return value.size() > index ? static_cast<int>(value.get<int>(index)) : value.get<int>(0);
        };
        const int channels = integer("num_output", 0, -1), kernel = integer("kernel_size", 0, 0);
        const int stride = integer("stride", 0, 1);
        bool applies = channels > 0 && integer("group", 0, 1) == channels && params.blobs.size() >= 1 &&
                       params.blobs[0].dims == 4 && params.blobs[0].type() == CV_32F &&
                       params.blobs[0].isContinuous() && params.blobs[0].size[0] == channels &&
                       params.blobs[0].size[1] == 1 && params.blobs[0].size[2] == kernel &&
                       params.blobs[0].size[3] == kernel && integer("kernel_size", 1, 0) == kernel &&
                       (kernel == 5 || (kernel == 3 && stride == 1)) && (stride == 1 || stride == 2) &&
                       integer("stride", 1, 1) == stride && integer("dilation", 0, 1) == 1 &&
                       integer("dilation", 1, 1) == 1 && !params.has("pad_mode") && !params.has("adj") &&
                       (params.blobs.size() < 2 ||
                        (params.blobs[1].total() == static_cast<size_t>(channels) &&
                         params.blobs[1].type() == CV_32F && params.blobs[1].isContinuous()));
        int pad_top = 0, pad_left = 0;
        if (applies && params.has("pad")) {
            // One pad for all sides, one a dimension, or each dimension's start then end (ONNX's
            // `pads`); only the same pad at both ends of a dimension is taken.
            const cv::dnn::DictValue &pads = params.get("pad");
            pad_top = pads.get<int>(0);
            pad_left = pads.size() > 1 ? pads.get<int>(1) : pad_top;
            if (pads.size() == 4)
                applies = pads.get<int>(2) == pad_top && pads.get<int>(3) == pad_left;
            else
                applies = pads.size() <= 2;
        }
        if (!applies || pad_top < 0 || pad_left < 0 || pad_top >= kernel || pad_left >= kernel) return opencv;
        return cv::Ptr<cv::dnn::Layer>(new DepthwiseConvolution(params, opencv, kernel, stride, pad_top, pad_left));
    }

    // Whether `create` makes this layer (false: OpenCV's for every convolution). Set while the
    // engine's network is read, which is when OpenCV makes its layers.
    static thread_local bool own_depthwise;

    bool getMemoryShapes(const std::vector<cv::dnn::MatShape> &inputs, const int required,
                         std::vector<cv::dnn::MatShape> &outputs,
                         std::vector<cv::dnn::MatShape> &internals) const override {
        return opencv_->getMemoryShapes(inputs, required, outputs, internals);
    }

    void finalize(cv::InputArrayOfArrays inputs, cv::OutputArrayOfArrays outputs) override {
        std::vector<cv::Mat> out;
        outputs.getMatVector(out);
        const int area = out.empty() || out[0].dims != 4 ? 0 : out[0].size[2] * out[0].size[3];
        delegate_ = area == 0 || (kernel_ == 3 && area > 400);
        if (delegate_) opencv_->finalize(inputs, outputs);
    }

    void forward(cv::InputArrayOfArrays inputs, cv::OutputArrayOfArrays outputs,
                 cv::OutputArrayOfArrays internals) override {
        if (delegate_) return opencv_->forward(inputs, outputs, internals);
        std::vector<cv::Mat> in, out;
        inputs.getMatVector(in);
        outputs.getMatVector(out);
        const cv::Mat &x = in[0];
        cv::Mat &y = out[0];
        CV_Assert(x.dims == 4 && y.dims == 4 && x.type() == CV_32F && y.type() == CV_32F && x.isContinuous() &&
                  y.isContinuous() && x.size[1] == channels_ && y.size[1] == channels_ && x.size[0] == y.size[0]);
        Shape shape{x.size[0], channels_, x.size[2], x.size[3], y.size[2], y.size[3]};
        if (shape.out_height * shape.out_width < 64)
            channels_last(x.ptr<float>(), y.ptr<float>(), shape);
        else
            planes(x.ptr<float>(), y.ptr<float>(), shape);
    }

  private:
    struct Shape {
        int batch, channels, height, width, out_height, out_width;
    };

    DepthwiseConvolution(const cv::dnn::LayerParams &params, cv::Ptr<cv::dnn::BaseConvolutionLayer> opencv,
                         int kernel, int stride, int pad_top, int pad_left)
        : cv::dnn::Layer(params), opencv_(opencv), kernel_(kernel), stride_(stride), pad_top_(pad_top),
          pad_left_(pad_left), channels_(params.blobs[0].size[0]) {
        const float *weights = params.blobs[0].ptr<float>();
        weights_.assign(weights, weights + static_cast<size_t>(channels_) * kernel * kernel);
        bias_.assign(channels_, 0.f);
        if (params.blobs.size() > 1)
            std::copy(params.blobs[1].ptr<float>(), params.blobs[1].ptr<float>() + channels_, bias_.begin());
        // The weights again, tap by tap: [tap][channel], for `channels_last`.
        by_tap_.resize(weights_.size());
        for (int c = 0; c < channels_; c++)
            for (int t = 0; t < kernel * kernel; t++)
                by_tap_[static_cast<size_t>(t) * channels_ + c] =
                    weights_[static_cast<size_t>(c) * kernel * kernel + t];
    }

    // Each channel apart, for pictures of 8×8 outputs or more: the padded input is split into
    // stride × stride phase planes (phase (py, px) holds the padded pixels (py + s·i, px + s·j)),
    // so that every tap is one multiply-add along a contiguous run of a phase plane; each output
    // row is computed `(kernel − 1) / stride` columns too wide, and those are dropped.
    void planes(const float *x, float *y, const Shape &shape) const {
        const int s = stride_, k = kernel_;
        const int wide = shape.out_width + (k - 1) / s, tall = shape.out_height + (k - 1) / s + 1;
        cv::parallel_for_(cv::Range(0, shape.batch * shape.channels), [&](const cv::Range &range) {
            std::vector<float> phases(static_cast<size_t>(s) * s * tall * wide);
            std::vector<float> rows(static_cast<size_t>(shape.out_height) * wide);
            for (int plane = range.start; plane < range.end; plane++) {
                const int c = plane % shape.channels;
                const float *source = x + static_cast<size_t>(plane) * shape.height * shape.width;
                std::fill(phases.begin(), phases.end(), 0.f);
                for (int row = 0; row < shape.height; row++) {
                    const int i = (row + pad_top_) / s, py = (row + pad_top_) % s;
                    if (i >= tall) break;
                    const float *line = source + static_cast<size_t>(row) * shape.width;
                    for (int column = 0; column < shape.width; column++) {
                        const int j = (column + pad_left_) / s, px = (column + pad_left_) % s;
                        if (j < wide) phases[(static_cast<size_t>(py * s + px) * tall + i) * wide + j] = line[column];
                    }
                }
                plane_taps(rows.data(), phases.data(), weights_.data() + static_cast<size_t>(c) * k * k, bias_[c], k,
                           s, tall, wide, shape.out_height * wide);
                float *target = y + static_cast<size_t>(plane) * shape.out_height * shape.out_width;
                for (int row = 0; row < shape.out_height; row++)
                    std::copy(rows.data() + static_cast<size_t>(row) * wide,
                              rows.data() + static_cast<size_t>(row) * wide + shape.out_width,
                              target + static_cast<size_t>(row) * shape.out_width);
            }
        });
    }

    __attribute__((target_clones("avx512f", "avx2", "default"))) static void
    plane_taps(float *__restrict out, const float *__restrict phases, const float *__restrict weights, float bias,
               int k, int s, int tall, int wide, int count) {
        for (int i = 0; i < count; i++) out[i] = bias;
        for (int ky = 0; ky < k; ky++)
            for (int kx = 0; kx < k; kx++) {
                const float *__restrict in = phases + static_cast<size_t>((ky % s) * s + kx % s) * tall * wide +
                                             static_cast<size_t>(ky / s) * wide + kx / s;
                const float weight = weights[ky * k + kx];
                for (int i = 0; i < count; i++) out[i] += weight * in[i];
            }
    }

    // All channels at once, for pictures of fewer than 8×8 outputs (many channels, few pixels):
    // the padded input laid out pixel by pixel, so each tap is one multiply-add along the channels.
    void channels_last(const float *x, float *y, const Shape &shape) const {
        const int k = kernel_, C = shape.channels;
        const int padded_height = (shape.out_height - 1) * stride_ + k;
        const int padded_width = (shape.out_width - 1) * stride_ + k;
        std::vector<float> padded(static_cast<size_t>(padded_height) * padded_width * C);
        for (int n = 0; n < shape.batch; n++) {
            const float *source = x + static_cast<size_t>(n) * C * shape.height * shape.width;
            float *target = y + static_cast<size_t>(n) * C * shape.out_height * shape.out_width;
            std::fill(padded.begin(), padded.end(), 0.f);
            for (int c = 0; c < C; c++)
                for (int row = 0; row < shape.height; row++) {
                    const int py = row + pad_top_;
                    if (py >= padded_height) break;
                    for (int column = 0; column < shape.width; column++) {
                        const int px = column + pad_left_;
                        if (px < padded_width)
                            padded[(static_cast<size_t>(py) * padded_width + px) * C + c] =
                                source[(static_cast<size_t>(c) * shape.height + row) * shape.width + column];
                    }
                }
            cv::parallel_for_(cv::Range(0, shape.out_height), [&](const cv::Range &range) {
                std::vector<float> sums(C);
                for (int oy = range.start; oy < range.end; oy++)
                    for (int ox = 0; ox < shape.out_width; ox++) {
                        pixel_taps(sums.data(), padded.data(), by_tap_.data(), bias_.data(), C, padded_width,
                                   oy * stride_, ox * stride_, k);
                        for (int c = 0; c < C; c++)
                            target[(static_cast<size_t>(c) * shape.out_height + oy) * shape.out_width + ox] = sums[c];
                    }
            });
        }
    }

    __attribute__((target_clones("avx512f", "avx2", "default"))) static void
    pixel_taps(float *__restrict sums, const float *__restrict padded, const float *__restrict by_tap,
               const float *__restrict bias, int C, int padded_width, int top, int left, int k) {
        for (int c = 0; c < C; c++) sums[c] = bias[c];
        for (int ky = 0; ky < k; ky++)
            for (int kx = 0; kx < k; kx++) {
                const float *__restrict in = padded + (static_cast<size_t>(top + ky) * padded_width + left + kx) * C;
                const float *__restrict weights = by_tap + static_cast<size_t>(ky * k + kx) * C;
                for (int c = 0; c < C; c++) sums[c] += weights[c] * in[c];
            }
    }

    cv::Ptr<cv::dnn::BaseConvolutionLayer> opencv_;
    bool delegate_ = true;
    int kernel_, stride_, pad_top_, pad_left_, channels_;
    std::vector<float> weights_, bias_, by_tap_;
};

thread_local bool DepthwiseConvolution::own_depthwise = false;

// The letters of a recognised word (UTF-8): ASCII letters and every character beyond ASCII (a lead
// byte; the English recogniser gives few of those, accented Latin letters).
int letters_in(const char *word) {
    int letters = 0;
    for (const unsigned char *c = reinterpret_cast<const unsigned char *>(word); *c != 0; c++)
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c >= 0xC0) letters++;
    return letters;
}

}  // namespace

extern "C" {

int vo_content_interface(void) { return VO_CONTENT_INTERFACE; }

void vo_content_set_threads(int threads) {
    try {
        // No more than the CPUs this process may run on (OpenCV counts its affinity and cgroup
        // quota; TBB, OpenCV's pool on Debian, warns on stderr when asked for more), and 0, not
        // 1, for one: OpenCV then runs sequentially, without a pool.
        threads = std::min(threads, cv::getNumberOfCPUs());
        cv::setNumThreads(threads <= 1 ? 0 : threads);
    } catch (...) {
    }
}

vo_content_engine *vo_content_engine_create(const char *model_path, char *error, size_t length) {
    return vo_content_engine_create_with(model_path, 0, error, length);
}

vo_content_engine *vo_content_engine_create_with(const char *model_path, int options, char *error, size_t length) {
    vo_content_engine *engine = nullptr;
    int status = guarded(error, length, [&]() {
        static std::once_flag registered;
        std::call_once(registered, [] {
            cv::dnn::LayerFactory::registerLayer("Convolution", DepthwiseConvolution::create);
        });
        auto made = std::make_unique<vo_content_engine>();
        // OpenCV makes the layers while it reads the network (ONNXImporter instantiates each to
        // learn its output's shape, and the net keeps that instance), so the choice holds for this
        // engine's network and no other.
        DepthwiseConvolution::own_depthwise = (options & VO_CONTENT_OPENCV_CONVOLUTIONS) == 0;
        try {
            made->scene = cv::dnn::readNetFromONNX(model_path);
            if (made->scene.empty()) throw std::runtime_error(std::string("no network in ") + model_path);
            made->scene.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
            made->scene.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        } catch (...) {
            DepthwiseConvolution::own_depthwise = false;
            throw;
        }
        DepthwiseConvolution::own_depthwise = false;
        engine = made.release();
        return 0;
    });
    return status == 0 ? engine : nullptr;
}

vo_content_engine::~vo_content_engine() {
    if (text != nullptr) tesseract_library().destroy(text);
    if (words != nullptr) tesseract_library().destroy(words);
}

void vo_content_engine_destroy(vo_content_engine *engine) { delete engine; }

int vo_content_faces(vo_content_engine *engine, const uint8_t *rgb, int width, int height, int stride,
                     int longest_side, int upsample, float minimum_score, vo_content_face *faces, int capacity,
                     char *error, size_t length) {
    if (engine == nullptr || !valid(rgb, width, height, stride) || longest_side < 16 || upsample < 0 || upsample > 2 ||
        faces == nullptr || capacity < 0) {
        say(error, length, "faces: invalid arguments");
        return -1;
    }
    return guarded(error, length, [&]() {
        cv::Mat picture = wrap(rgb, width, height, stride);
        double scale = 1;
        if (std::max(width, height) > longest_side) {
            scale = static_cast<double>(longest_side) / std::max(width, height);
            cv::Mat smaller;
            cv::resize(picture, smaller,
                       cv::Size(std::max(1, static_cast<int>(width * scale + 0.5)),
                                std::max(1, static_cast<int>(height * scale + 0.5))),
                       0, 0, cv::INTER_AREA);
            picture = smaller;
        }
        dlib::array2d<dlib::rgb_pixel> image(picture.rows, picture.cols);
        for (int y = 0; y < picture.rows; y++) {
            const uint8_t *row = picture.ptr<uint8_t>(y);
            for (int x = 0; x < picture.cols; x++)
                image[y][x] = dlib::rgb_pixel(row[3 * x], row[3 * x + 1], row[3 * x + 2]);
        }
        for (int i = 0; i < upsample; i++) {
            dlib::pyramid_up(image);
            scale *= 2;
        }
        if (!engine->faces_loaded) {
            engine->faces = face_detector();
            engine->faces_loaded = true;
        }
        std::vector<dlib::rect_detection> found;
        engine->faces(image, found, minimum_score);
        std::sort(found.begin(), found.end(), [](const dlib::rect_detection &a, const dlib::rect_detection &b) {
            return a.detection_confidence > b.detection_confidence;
        });
        int count = 0;
        for (const auto &detection : found) {
            if (count >= capacity) break;
            const auto &box = detection.rect;
            faces[count++] = vo_content_face{
                static_cast<float>(box.left() / scale), static_cast<float>(box.top() / scale),
                static_cast<float>(box.width() / scale), static_cast<float>(box.height() / scale),
                static_cast<float>(detection.detection_confidence)};
        }
        return count;
    });
}

// The centred square of the picture, scaled to side × side with area averaging (or bilinear when
// it must grow), as the network's input blob: RGB in, RGB to the network, whose first node
// normalises; `mirror`: 0 the picture alone, 1 with its mirror image as a second picture, 2 its
// mirror image alone.
static cv::Mat square_input(const uint8_t *rgb, int width, int height, int stride, int side, int mirror) {
    cv::Mat picture = wrap(rgb, width, height, stride);
    int shorter = std::min(width, height);
    cv::Mat square = picture(cv::Rect((width - shorter) / 2, (height - shorter) / 2, shorter, shorter));
    cv::Mat scaled;
    cv::resize(square, scaled, cv::Size(side, side), 0, 0, shorter >= side ? cv::INTER_AREA : cv::INTER_LINEAR);
    std::vector<cv::Mat> batch;
    if (mirror != 2) batch.push_back(scaled);
    if (mirror != 0) {
        cv::Mat mirrored;
        cv::flip(scaled, mirrored, 1);
        batch.push_back(mirrored);
    }
    return cv::dnn::blobFromImages(batch, 1.0, cv::Size(side, side), cv::Scalar(), false, false, CV_32F);
}

// Runs the network on `input` and copies output `name`, which must hold `count` floats.
static void run(vo_content_engine *engine, const cv::Mat &input, const char *name, size_t count, float *out) {
    engine->scene.setInput(input, "image");
    cv::Mat result = engine->scene.forward(name);
    if (result.total() != count || result.type() != CV_32F)
        throw std::runtime_error(std::string("the scene network gave ") + name + " of an unexpected shape");
    std::copy(result.ptr<float>(), result.ptr<float>() + count, out);
}

int vo_content_scene(vo_content_engine *engine, const uint8_t *rgb, int width, int height, int stride, int side,
                     int mirror, float *features, char *error, size_t length) {
    return vo_content_scene_classes(engine, rgb, width, height, stride, side, mirror, features, nullptr, error,
                                    length);
}

int vo_content_scene_classes(vo_content_engine *engine, const uint8_t *rgb, int width, int height, int stride,
                             int side, int mirror, float *features, float *logits, char *error, size_t length) {
    if (engine == nullptr || !valid(rgb, width, height, stride) || features == nullptr || side % 32 != 0 ||
        side < VO_CONTENT_SCENE_SIDE_MIN || side > VO_CONTENT_SCENE_SIDE_MAX || mirror < 0 || mirror > 2) {
        say(error, length, "scene: invalid arguments");
        return -1;
    }
    return guarded(error, length, [&]() {
        cv::Mat input = square_input(rgb, width, height, stride, side, mirror);
        size_t pictures = static_cast<size_t>(input.size[0]);
        if (logits == nullptr) {
            run(engine, input, "features", pictures * VO_CONTENT_FEATURES, features);
            return 0;
        }
        // One pass for both: the classes are one matrix product after the features.
        engine->scene.setInput(input, "image");
        std::vector<cv::Mat> results;
        engine->scene.forward(results, std::vector<cv::String>{"features", "logits"});
        if (results.size() != 2 || results[0].total() != pictures * VO_CONTENT_FEATURES ||
            results[1].total() != pictures * VO_CONTENT_CLASSES || results[0].type() != CV_32F ||
            results[1].type() != CV_32F)
            throw std::runtime_error("the scene network gave features or logits of an unexpected shape");
        std::copy(results[0].ptr<float>(), results[0].ptr<float>() + results[0].total(), features);
        std::copy(results[1].ptr<float>(), results[1].ptr<float>() + results[1].total(), logits);
        return 0;
    });
}

int vo_content_text_orientation(vo_content_engine *engine, const uint8_t *rgb, int width, int height, int stride,
                                int longest_side, vo_content_text *text, char *error, size_t length) {
    if (engine == nullptr || !valid(rgb, width, height, stride) || text == nullptr || longest_side < 1 ||
        longest_side > 16384) {
        say(error, length, "text: invalid arguments");
        return -1;
    }
    const Tesseract &library = tesseract_library();
    if (!library.failure.empty()) {
        say(error, length, library.failure);
        return -1;
    }
    return guarded(error, length, [&]() {
        if (engine->text == nullptr) engine->text = made_tesseract(library, "osd", "orientation data");
        cv::Mat picture = wrap(rgb, width, height, stride);
        double scale = std::min(static_cast<double>(longest_side) / std::max(width, height),
                                static_cast<double>(VO_CONTENT_TEXT_ENLARGE));
        if (scale > 1.01) picture = scaled(picture, scale);
        // No resolution is given, as `tesseract --psm 0` gives none for a PNG: it takes 70 dpi and
        // estimates the letters' size from the picture.
        library.set_image(engine->text, picture.data, picture.cols, picture.rows, 3, static_cast<int>(picture.step));
        int degrees = 0;
        float confidence = 0, script_confidence = 0;
        const char *script = nullptr;
        bool read = library.detect(engine->text, &degrees, &confidence, &script, &script_confidence);
        library.clear(engine->text);
        if (!read) return 0;
        // Tesseract says how far the picture is turned clockwise from upright; the turn back is the rest.
        text->rotation = (360 - degrees % 360) % 360;
        text->confidence = confidence;
        text->script_confidence = script_confidence;
        std::snprintf(text->script, sizeof text->script, "%s", script != nullptr ? script : "");
        return 1;
    });
}

int vo_content_letter_shapes(vo_content_engine *engine, const uint8_t *rgb, int width, int height, int stride,
                             int longest_side, vo_content_letters *letters, char *error, size_t length) {
    if (engine == nullptr || !valid(rgb, width, height, stride) || letters == nullptr || longest_side < 16 ||
        longest_side > 16384) {
        say(error, length, "letters: invalid arguments");
        return -1;
    }
    const Leptonica &library = leptonica_library();
    if (!library.failure.empty()) {
        say(error, length, library.failure);
        return -1;
    }
    return guarded(error, length, [&]() {
        cv::Mat grey;
        cv::cvtColor(wrap(rgb, width, height, stride), grey, cv::COLOR_RGB2GRAY);
        // Fitted to the side asked for: the templates see strokes a few pixels wide.
        double scale = static_cast<double>(longest_side) / std::max(width, height);
        if (std::abs(scale - 1) >= 0.05) grey = scaled(grey, scale);
        // Dark letters on light, whatever the lighting: a mostly dark picture (its median under 110)
        // is inverted, then each pixel is compared with its neighbourhood's Gaussian-weighted mean.
        size_t histogram[256] = {};
        for (int y = 0; y < grey.rows; y++) {
            const uint8_t *row = grey.ptr<uint8_t>(y);
            for (int x = 0; x < grey.cols; x++) histogram[row[x]]++;
        }
        size_t half = grey.total() / 2, below = 0;
        int median = 0;
        while ((below += histogram[median]) <= half) median++;
        if (median < 110) cv::bitwise_not(grey, grey);
        int block = std::max(15, (std::min(grey.rows, grey.cols) / 40) | 1);
        cv::Mat binary;
        cv::adaptiveThreshold(grey, binary, 255, cv::ADAPTIVE_THRESH_GAUSSIAN_C, cv::THRESH_BINARY, block, 15);
        // Leptonica's 1-bit picture: a set bit is ink, 32 pixels a word, the leftmost the highest bit.
        PIX *pix = library.create(binary.cols, binary.rows, 1);
        if (pix == nullptr) throw std::bad_alloc();
        l_uint32 *words = library.data(pix);
        int wpl = library.words_per_line(pix);
        for (int y = 0; y < binary.rows; y++) {
            const uint8_t *row = binary.ptr<uint8_t>(y);
            l_uint32 *line = words + static_cast<size_t>(y) * wpl;
            for (int x = 0; x < binary.cols; x++)
                if (row[x] < 128) line[x >> 5] |= 0x80000000u >> (x & 31);
        }
        l_float32 up = 0, left = 0;
        l_ok failed = library.detect(pix, &up, &left, 0, 0);
        library.destroy(&pix);
        if (failed != 0) throw std::runtime_error("Leptonica's orientation detection failed");
        letters->up = up;
        letters->left = left;
        return 0;
    });
}

int vo_content_word_counts(vo_content_engine *engine, const uint8_t *rgb, int width, int height, int stride,
                           int longest_side, float minimum_confidence, int minimum_letters, int deadline_ms,
                           vo_content_words *words, char *error, size_t length) {
    if (engine == nullptr || !valid(rgb, width, height, stride) || words == nullptr || longest_side < 16 ||
        longest_side > 16384 || deadline_ms < 1) {
        say(error, length, "words: invalid arguments");
        return -1;
    }
    const Tesseract &library = tesseract_library();
    if (!library.failure.empty() || !library.words_failure.empty()) {
        say(error, length, library.failure.empty() ? library.words_failure : library.failure);
        return -1;
    }
    return guarded(error, length, [&]() {
        if (engine->words == nullptr) {
            TessBaseAPI *made = made_tesseract(library, "eng", "English data");
            // One column of text, read in the direction it is given: no block of text on its side is
            // turned upright by the layout analysis (which would read a page on its side as well as
            // upright).
            library.set_page_mode(made, tesseract::PSM_SINGLE_COLUMN);
            library.set_variable(made, "textord_tabfind_vertical_text", "0");
            engine->words = made;
        }
        cv::Mat picture = wrap(rgb, width, height, stride);
        double scale = std::min(static_cast<double>(longest_side) / std::max(width, height),
                                static_cast<double>(VO_CONTENT_TEXT_ENLARGE));
        if (std::abs(scale - 1) >= 0.01) picture = scaled(picture, scale);
        // Leptonica, which Tesseract's layout analysis calls, prints its complaints ("box outside
        // rectangle") on our standard error unless told not to, as the letter shapes tell it.
        leptonica_library();
        // The workers are the parallelism: Tesseract's OpenMP teams would only oversubscribe the cores.
        if (library.set_max_active_levels != nullptr) library.set_max_active_levels(0);
        int counts[4] = {};
        for (int k = 0; k < 4; k++) {
            cv::Mat turned;
            if (k == 0)
                turned = picture;
            else
                cv::rotate(picture, turned,
                           k == 1 ? cv::ROTATE_90_CLOCKWISE : k == 2 ? cv::ROTATE_180 : cv::ROTATE_90_COUNTERCLOCKWISE);
            library.set_image(engine->words, turned.data, turned.cols, turned.rows, 3, static_cast<int>(turned.step));
            ETEXT_DESC *monitor = library.create_monitor();
            if (monitor == nullptr) throw std::bad_alloc();
            library.set_deadline(monitor, deadline_ms);
            bool finished = library.recognize(engine->words, monitor) == 0;
            library.delete_monitor(monitor);
            if (!finished) {
                library.clear(engine->words);
                return 0;
            }
            if (TessResultIterator *word = library.iterator(engine->words)) {
                do {
                    char *text = library.word_text(word, tesseract::RIL_WORD);
                    if (text == nullptr) continue;
                    if (library.word_confidence(word, tesseract::RIL_WORD) >= minimum_confidence &&
                        letters_in(text) >= minimum_letters)
                        counts[k]++;
                    library.delete_text(text);
                } while (library.next(word, tesseract::RIL_WORD));
                library.delete_iterator(word);
            }
            library.clear(engine->words);
        }
        std::copy(counts, counts + 4, words->counts);
        return 1;
    });
}

int vo_content_classes(vo_content_engine *engine, const uint8_t *rgb, int width, int height, int stride,
                       float *logits, char *error, size_t length) {
    if (engine == nullptr || !valid(rgb, width, height, stride) || logits == nullptr) {
        say(error, length, "classes: invalid arguments");
        return -1;
    }
    return guarded(error, length, [&]() {
        run(engine, square_input(rgb, width, height, stride, VO_CONTENT_SCENE_SIDE, 0), "logits",
            VO_CONTENT_CLASSES, logits);
        return 0;
    });
}

// swiftrt.o, which the Swift driver links into every product SwiftPM builds, registers the
// image with the Swift runtime when it loads. This library holds no Swift, so there is nothing
// to register: this empty definition satisfies that one reference, and no Swift runtime is
// linked in or needed (Package.swift links the product with -static-stdlib for that reason).
__attribute__((visibility("hidden"))) void swift_addNewDSOImage(const void *) {}

}  // extern "C"
