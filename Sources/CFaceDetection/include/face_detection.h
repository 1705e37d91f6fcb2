// OpenCV's Haar cascade face detectors behind a C API (OpenCV is C++; Swift calls C). Only
// ImageEngine imports this module. Classifiers are loaded once per thread and per cascade file
// (a cv::CascadeClassifier is not safe to share between threads), so the calls are thread-safe.
#ifndef FACE_DETECTION_H
#define FACE_DETECTION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One detection in the image's pixel coordinates. `neighbours` is how many overlapping
/// detection windows were grouped into it (OpenCV's `numDetections`, always > min_neighbours).
typedef struct {
    int32_t x;
    int32_t y;
    int32_t width;
    int32_t height;
    int32_t neighbours;
} fd_detection;

/// How OpenCV's `CascadeClassifier::detectMultiScale` runs (its parameters, by name).
typedef struct {
    double scale_factor;
    int32_t min_neighbours;
    int32_t min_size;
    /// Equalize the grey image's histogram first (as OpenCV's face detection sample does).
    int32_t equalize_histogram;
    /// Also run the cascade on the image mirrored left to right (the profile cascade sees faces
    /// turned one way only); mirrored detections are mapped back and returned after the others.
    int32_t mirrored_too;
} fd_parameters;

/// Runs the cascade in `cascade_path` on an 8-bit image of `bands` samples a pixel (1 grey, 3 RGB,
/// 4 RGBA; `stride` bytes a row), turned grey first as OpenCV's cvtColor does (alpha ignored). Writes at
/// most `capacity` detections to `out` and returns how many there were (which may exceed
/// `capacity`: the caller asks again with more room), or -1 with a message in `error` (at most
/// `error_capacity` bytes, NUL-terminated) when the cascade cannot be loaded or OpenCV throws.
int32_t fd_detect(const char *cascade_path, const uint8_t *pixels, int32_t width, int32_t height, int32_t bands,
                  size_t stride,
                  const fd_parameters *parameters, fd_detection *out, int32_t capacity, char *error,
                  size_t error_capacity);

#ifdef __cplusplus
}
#endif

#endif
