// The content engine: dlib's HOG frontal face detector and EfficientNet-Lite0 through OpenCV's
// DNN module, behind the C surface in include/vidorient_content.h. Built as its
// own shared library (libVidorientContentEngine.so) and opened on first use, never linked into
// the program. Every C++ object is owned here; no exception crosses the C surface.

#include "vidorient_content.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <dlib/image_processing/frontal_face_detector.h>
#include <dlib/image_transforms/interpolation.h>
#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

struct vo_content_engine {
    cv::dnn::Net scene;
    dlib::frontal_face_detector faces;
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

// The caller's pixels as a Mat, without copying (read only).
cv::Mat wrap(const uint8_t *rgb, int width, int height, int stride) {
    return cv::Mat(height, width, CV_8UC3, const_cast<uint8_t *>(rgb), static_cast<size_t>(stride));
}

// dlib's detector, deserialized from the copy compiled into dlib once per process (that takes
// about 0.4 s of CPU, most of an engine's start-up) and copied into each engine after that.
const dlib::frontal_face_detector &face_detector() {
    static const dlib::frontal_face_detector prototype = dlib::get_frontal_face_detector();
    return prototype;
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
    vo_content_engine *engine = nullptr;
    int status = guarded(error, length, [&]() {
        auto made = std::make_unique<vo_content_engine>();
        made->scene = cv::dnn::readNetFromONNX(model_path);
        if (made->scene.empty()) throw std::runtime_error(std::string("no network in ") + model_path);
        made->scene.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        made->scene.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        made->faces = face_detector();
        engine = made.release();
        return 0;
    });
    return status == 0 ? engine : nullptr;
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
    if (engine == nullptr || !valid(rgb, width, height, stride) || features == nullptr || side % 32 != 0 ||
        side < VO_CONTENT_SCENE_SIDE_MIN || side > VO_CONTENT_SCENE_SIDE_MAX || mirror < 0 || mirror > 2) {
        say(error, length, "scene: invalid arguments");
        return -1;
    }
    return guarded(error, length, [&]() {
        cv::Mat input = square_input(rgb, width, height, stride, side, mirror);
        run(engine, input, "features", static_cast<size_t>(input.size[0]) * VO_CONTENT_FEATURES, features);
        return 0;
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
