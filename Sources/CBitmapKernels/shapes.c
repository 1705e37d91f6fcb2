#include "CBitmapKernels.h"

#include <math.h>
#include <string.h>

// How much of pixel (x, y) (its centre at +0.5) lies inside [left, right) x [top, bottom) with
// the `corners` (bit 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right) rounded by
// `radius`: 0 to 1, a one-pixel ramp across every edge (antialiasing).
static float wi_rounded_rect_coverage(float x, float y, float left, float top, float right, float bottom,
                                      float radius, unsigned corners) {
    float cx = x + 0.5f;
    float cy = y + 0.5f;
    float horizontal = fminf(fmaxf(cx - left + 0.5f, 0.0f), 1.0f) * fminf(fmaxf(right - cx + 0.5f, 0.0f), 1.0f);
    float vertical = fminf(fmaxf(cy - top + 0.5f, 0.0f), 1.0f) * fminf(fmaxf(bottom - cy + 0.5f, 0.0f), 1.0f);
    float coverage = horizontal * vertical;
    if (radius <= 0.0f || coverage <= 0.0f) {
        return coverage;
    }
    int is_left = cx < left + radius;
    int is_right = cx > right - radius;
    int is_top = cy < top + radius;
    int is_bottom = cy > bottom - radius;
    unsigned corner = 0;
    if (is_top && is_left) {
        corner = 1u;
    } else if (is_top && is_right) {
        corner = 2u;
    } else if (is_bottom && is_left) {
        corner = 4u;
    } else if (is_bottom && is_right) {
        corner = 8u;
    }
    if ((corners & corner) == 0) {
        return coverage;
    }
    float centre_x = is_left ? left + radius : right - radius;
    float centre_y = is_top ? top + radius : bottom - radius;
    float distance = hypotf(cx - centre_x, cy - centre_y);
    float round = fminf(fmaxf(radius - distance + 0.5f, 0.0f), 1.0f);
    return fminf(coverage, round);
}

void wi_rounded_rect_rgba8(int width, int height, double radius, unsigned corners, double inset, const uint8_t colour[4],
                           uint8_t *out) {
    wi_rounded_rect_area_rgba8(width, height, radius, corners, inset, colour, 0, 0, width, height, out);
}

void wi_rounded_rect_area_rgba8(int width, int height, double radius, unsigned corners, double inset,
                                const uint8_t colour[4], int left, int top, int area_width, int area_height,
                                uint8_t *out) {
    float side = (float)(width < height ? width : height);
    float outer = fminf(fmaxf((float)radius, 0.0f), side / 2.0f);
    float border = fmaxf((float)inset, 0.0f);
    float inner = fmaxf(outer - border, 0.0f);
    for (int y = top; y < top + area_height; y++) {
        uint8_t *pixel = out + (size_t)(y - top) * (size_t)area_width * 4;
        for (int x = left; x < left + area_width; x++, pixel += 4) {
            float coverage = wi_rounded_rect_coverage((float)x, (float)y, 0, 0, (float)width, (float)height, outer, corners);
            if (border > 0.0f && coverage > 0.0f) {
                coverage -= wi_rounded_rect_coverage((float)x, (float)y, border, border, (float)width - border,
                                                     (float)height - border, inner, corners);
                coverage = fmaxf(coverage, 0.0f);
            }
            pixel[0] = colour[0];
            pixel[1] = colour[1];
            pixel[2] = colour[2];
            pixel[3] = (uint8_t)lrintf(coverage * (float)colour[3]);
        }
    }
}

// The radius as drawn: at most half the shorter side.
static float wi_round_corners_outer(int width, int height, double radius) {
    float side = (float)(width < height ? width : height);
    return fminf(fmaxf((float)radius, 0.0f), side / 2.0f);
}

int wi_round_corners_depth(int width, int height, double radius) {
    // Only pixels within the radius of an edge (and one more, the antialiased ramp) change.
    return (int)ceilf(wi_round_corners_outer(width, height, radius)) + 1;
}

void wi_round_corners_row(uint8_t *pixels, int y, int left, int count, int width, int height, double radius,
                          unsigned corners, int premultiplied) {
    float outer = wi_round_corners_outer(width, height, radius);
    int depth = wi_round_corners_depth(width, height, radius);
    // Along the straight edges a pixel is wholly inside: only the corner squares change.
    if (y >= depth && y < height - depth) {
        return;
    }
    for (int x = left; x < left + count; x++) {
        if (x >= depth && x < width - depth) {
            x = width - depth - 1;
            continue;
        }
        float coverage = wi_rounded_rect_coverage((float)x, (float)y, 0, 0, (float)width, (float)height, outer, corners);
        // As the libvips step multiplies by the mask's alpha: (alpha * mask) / 255, rounded.
        uint32_t mask = (uint32_t)lrintf(coverage * 255.0f);
        uint8_t *pixel = pixels + (size_t)(x - left) * 4;
        for (int band = premultiplied ? 0 : 3; band < 4; band++) {
            pixel[band] = (uint8_t)((pixel[band] * mask * 2 + 255) / 510);
        }
    }
}

void wi_round_corners_rgba8(const uint8_t *src, int width, int height, double radius, unsigned corners, uint8_t *dst) {
    memcpy(dst, src, (size_t)width * (size_t)height * 4);
    for (int y = 0; y < height; y++) {
        wi_round_corners_row(dst + (size_t)y * (size_t)width * 4, y, 0, width, width, height, radius, corners, 0);
    }
}
