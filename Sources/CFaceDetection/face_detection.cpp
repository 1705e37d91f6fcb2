// fd_detect: OpenCV's CascadeClassifier on a grey bitmap, one classifier per thread and cascade.
#include "face_detection.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

void write_error(char *error, size_t capacity, const char *message) {
    if (error == nullptr || capacity == 0) return;
    std::snprintf(error, capacity, "%s", message);
}

/// This thread's classifier for `path`, loaded at its first use. A CascadeClassifier keeps
/// scratch state while it detects, so it is never shared; the blocking pool's threads are few
/// and live as long as the process, so the per-thread copies are bounded by threads x cascades.
cv::CascadeClassifier *classifier(const std::string &path) {
    thread_local std::map<std::string, std::unique_ptr<cv::CascadeClassifier>> loaded;
    auto found = loaded.find(path);
    if (found != loaded.end()) return found->second.get();
    // A file that cannot be opened is an error of ours, without OpenCV's log line on stderr.
    if (std::FILE *file = std::fopen(path.c_str(), "rb")) {
        std::fclose(file);
    } else {
        return nullptr;
    }
    auto made = std::make_unique<cv::CascadeClassifier>();
    if (!made->load(path) || made->empty()) return nullptr;
    return loaded.emplace(path, std::move(made)).first->second.get();
}

void detect_into(cv::CascadeClassifier &cascade, const cv::Mat &grey, const fd_parameters &parameters,
                 bool mirrored, std::vector<fd_detection> &found) {
    std::vector<cv::Rect> objects;
    std::vector<int> neighbours;
    cv::Size min_size(parameters.min_size, parameters.min_size);
    cascade.detectMultiScale(grey, objects, neighbours, parameters.scale_factor, parameters.min_neighbours, 0,
                             min_size);
    for (size_t i = 0; i < objects.size(); i++) {
        const cv::Rect &r = objects[i];
        int x = mirrored ? grey.cols - r.x - r.width : r.x;
        found.push_back({x, r.y, r.width, r.height, i < neighbours.size() ? neighbours[i] : 0});
    }
}

}  // namespace

extern "C" int32_t fd_detect(const char *cascade_path, const uint8_t *pixels, int32_t width, int32_t height,
                             int32_t bands, size_t stride, const fd_parameters *parameters, fd_detection *out, int32_t capacity,
                             char *error, size_t error_capacity) {
    if (cascade_path == nullptr || pixels == nullptr || parameters == nullptr || width <= 0 || height <= 0 ||
        (bands != 1 && bands != 3 && bands != 4) || stride < static_cast<size_t>(width) * static_cast<size_t>(bands) ||
        capacity < 0 || (capacity > 0 && out == nullptr)) {
        write_error(error, error_capacity, "invalid arguments");
        return -1;
    }
    try {
        // One thread a detection, as libvips runs one a pipeline: parallelism comes from
        // several images at once on the blocking pool, and OpenCV's own pool (a thread a core)
        // beside it would oversubscribe the cores. Process-wide, set once.
        static std::once_flag single_threaded;
        std::call_once(single_threaded, [] { cv::setNumThreads(1); });
        cv::CascadeClassifier *cascade = classifier(cascade_path);
        if (cascade == nullptr) {
            std::string message = std::string("cannot load the cascade ") + cascade_path;
            write_error(error, error_capacity, message.c_str());
            return -1;
        }
        // A header over the caller's pixels: OpenCV reads them, never writes.
        cv::Mat input(height, width, CV_8UC(bands), const_cast<uint8_t *>(pixels), stride);
        cv::Mat grey;
        if (bands == 1) {
            grey = input;
        } else {
            cv::cvtColor(input, grey, bands == 3 ? cv::COLOR_RGB2GRAY : cv::COLOR_RGBA2GRAY);
        }
        cv::Mat image;
        if (parameters->equalize_histogram) {
            cv::equalizeHist(grey, image);
        } else {
            image = grey;
        }
        std::vector<fd_detection> found;
        detect_into(*cascade, image, *parameters, false, found);
        if (parameters->mirrored_too) {
            cv::Mat mirrored;
            cv::flip(image, mirrored, 1);
            detect_into(*cascade, mirrored, *parameters, true, found);
        }
        int32_t count = static_cast<int32_t>(found.size());
        for (int32_t i = 0; i < count && i < capacity; i++) out[i] = found[static_cast<size_t>(i)];
        return count;
    } catch (const std::exception &e) {
        write_error(error, error_capacity, e.what());
        return -1;
    } catch (...) {
        write_error(error, error_capacity, "unknown OpenCV failure");
        return -1;
    }
}
