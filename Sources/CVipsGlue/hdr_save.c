// HDR encoders: 16-bit RGB(A) samples (full signal at 65535, in the encoding of their CICP
// primaries and transfer) written as HEIF/AVIF at 10 or 12 bits with an nclx box (libheif), or
// as JPEG XL with its colour encoding (libjxl). libvips 8.14's savers cannot: its heifsave
// writes no nclx for PQ or HLG, and its jxlsave describes 16-bit samples as linear sRGB.

#include "CVipsGlue.h"
#include <jxl/encode.h>
#include <libheif/heif.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t *data;
    size_t length;
    size_t capacity;
    int failed;
} wi_output;

static void wi_output_append(wi_output *out, const void *data, size_t size) {
    if (out->failed) {
        return;
    }
    if (out->length + size > out->capacity) {
        size_t capacity = (out->capacity + size) * 2;
        uint8_t *grown = realloc(out->data, capacity);
        if (grown == NULL) {
            out->failed = 1;
            return;
        }
        out->data = grown;
        out->capacity = capacity;
    }
    memcpy(out->data + out->length, data, size);
    out->length += size;
}

static struct heif_error wi_heif_write(struct heif_context *context, const void *data, size_t size, void *user) {
    (void)context;
    wi_output *out = user;
    wi_output_append(out, data, size);
    struct heif_error error = {out->failed ? heif_error_Memory_allocation_error : heif_error_Ok, heif_suberror_Unspecified,
                               out->failed ? "out of memory" : "Success"};
    return error;
}

static int wi_heif_fail(const char *what, struct heif_error error) {
    vips_error("wi_heif_save_hdr", "%s: %s", what, error.message != NULL ? error.message : "failed");
    return -1;
}

int wi_heif_save_hdr(const uint16_t *samples, int width, int height, int bands, int av1, int bits, int quality,
                     int effort, int primaries, int transfer, void **data, size_t *length) {
    if ((bands != 3 && bands != 4) || (bits != 10 && bits != 12) || width <= 0 || height <= 0) {
        vips_error("wi_heif_save_hdr", "RGB or RGBA samples and 10 or 12 bits expected");
        return -1;
    }
    if (av1) {
        // Debian 12's libheif 1.15 gives 10-bit AV1 the professional profile, which libaom 3.6
        // allows only at 4:2:2 and asserts on otherwise, aborting the process (heif-enc -A -b 10
        // does too); at 12 bits that profile takes any subsampling.
        bits = 12;
    }
    struct heif_image *image = NULL;
    struct heif_error error = heif_image_create(width, height, heif_colorspace_RGB,
                                                bands == 4 ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE,
                                                &image);
    if (error.code != heif_error_Ok) {
        return wi_heif_fail("image", error);
    }
    int status = -1;
    struct heif_context *context = NULL;
    struct heif_encoder *encoder = NULL;
    struct heif_encoding_options *options = NULL;
    struct heif_color_profile_nclx *nclx = NULL;
    error = heif_image_add_plane(image, heif_channel_interleaved, width, height, bits);
    if (error.code != heif_error_Ok) {
        wi_heif_fail("plane", error);
        goto done;
    }
    int stride = 0;
    uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
    if (plane == NULL) {
        vips_error("wi_heif_save_hdr", "no plane");
        goto done;
    }
    // 16-bit samples to `bits`, rounded, little-endian as the chroma says.
    const uint32_t top = (1u << bits) - 1;
    for (int y = 0; y < height; y++) {
        const uint16_t *row = samples + (size_t)y * (size_t)width * (size_t)bands;
        uint8_t *target = plane + (size_t)y * (size_t)stride;
        for (int i = 0; i < width * bands; i++) {
            uint32_t v = ((uint32_t)row[i] * top + 32767u) / 65535u;
            target[2 * i] = (uint8_t)(v & 0xFF);
            target[2 * i + 1] = (uint8_t)(v >> 8);
        }
    }
    nclx = heif_nclx_color_profile_alloc();
    if (nclx == NULL) {
        vips_error("wi_heif_save_hdr", "out of memory");
        goto done;
    }
    heif_nclx_color_profile_set_color_primaries(nclx, (uint16_t)primaries);
    heif_nclx_color_profile_set_transfer_characteristics(nclx, (uint16_t)transfer);
    // BT.2020's non-constant-luminance YCbCr for BT.2020 primaries, BT.709's otherwise.
    heif_nclx_color_profile_set_matrix_coefficients(nclx, primaries == 9 ? 9 : 1);
    nclx->full_range_flag = 1;
    error = heif_image_set_nclx_color_profile(image, nclx);
    if (error.code != heif_error_Ok) {
        wi_heif_fail("nclx", error);
        goto done;
    }
    context = heif_context_alloc();
    error = heif_context_get_encoder_for_format(context, av1 ? heif_compression_AV1 : heif_compression_HEVC, &encoder);
    if (error.code != heif_error_Ok) {
        wi_heif_fail("encoder", error);
        goto done;
    }
    heif_encoder_set_lossy_quality(encoder, quality);
    if (effort >= 0) {
        // As libvips' heifsave sets it: libaom's speed; x265 has no such parameter and keeps
        // its preset (its refusal is not a failure).
        heif_encoder_set_parameter_integer(encoder, "speed", 9 - effort);
    }
    options = heif_encoding_options_alloc();
    options->output_nclx_profile = nclx;
    // libheif 1.15 leaves the nclx box out by default (a workaround for macOS); the box is what
    // says PQ or HLG.
    options->macOS_compatibility_workaround_no_nclx_profile = 0;
    struct heif_image_handle *handle = NULL;
    error = heif_context_encode_image(context, image, encoder, options, &handle);
    if (error.code != heif_error_Ok) {
        wi_heif_fail("encode", error);
        goto done;
    }
    heif_image_handle_release(handle);
    wi_output out = {0};
    struct heif_writer writer = {1, wi_heif_write};
    error = heif_context_write(context, &writer, &out);
    if (error.code != heif_error_Ok || out.failed) {
        free(out.data);
        wi_heif_fail("write", error);
        goto done;
    }
    *data = out.data;
    *length = out.length;
    status = 0;
done:
    if (options != NULL) {
        heif_encoding_options_free(options);
    }
    if (encoder != NULL) {
        heif_encoder_release(encoder);
    }
    if (context != NULL) {
        heif_context_free(context);
    }
    if (nclx != NULL) {
        heif_nclx_color_profile_free(nclx);
    }
    heif_image_release(image);
    return status;
}

int wi_jxl_save_hdr(const uint16_t *samples, int width, int height, int bands, double distance, int effort,
                    int primaries, int transfer, double peak_luminance, void **data, size_t *length) {
    if ((bands != 3 && bands != 4) || width <= 0 || height <= 0) {
        vips_error("wi_jxl_save_hdr", "RGB or RGBA samples expected");
        return -1;
    }
    JxlColorEncoding encoding;
    memset(&encoding, 0, sizeof encoding);
    encoding.color_space = JXL_COLOR_SPACE_RGB;
    encoding.white_point = JXL_WHITE_POINT_D65;
    switch (primaries) {
    case 9: encoding.primaries = JXL_PRIMARIES_2100; break;
    case 12: encoding.primaries = JXL_PRIMARIES_P3; break;
    default: encoding.primaries = JXL_PRIMARIES_SRGB; break;
    }
    switch (transfer) {
    case 16: encoding.transfer_function = JXL_TRANSFER_FUNCTION_PQ; break;
    case 18: encoding.transfer_function = JXL_TRANSFER_FUNCTION_HLG; break;
    case 8: encoding.transfer_function = JXL_TRANSFER_FUNCTION_LINEAR; break;
    case 1: case 6: case 14: case 15: encoding.transfer_function = JXL_TRANSFER_FUNCTION_709; break;
    default: encoding.transfer_function = JXL_TRANSFER_FUNCTION_SRGB; break;
    }
    encoding.rendering_intent = JXL_RENDERING_INTENT_RELATIVE;
    JxlEncoder *encoder = JxlEncoderCreate(NULL);
    if (encoder == NULL) {
        vips_error("wi_jxl_save_hdr", "out of memory");
        return -1;
    }
    int status = -1;
    wi_output out = {0};
    JxlBasicInfo info;
    JxlEncoderInitBasicInfo(&info);
    info.xsize = (uint32_t)width;
    info.ysize = (uint32_t)height;
    info.bits_per_sample = 16;
    info.num_color_channels = 3;
    info.alpha_bits = bands == 4 ? 16 : 0;
    info.num_extra_channels = bands == 4 ? 1 : 0;
    info.uses_original_profile = JXL_FALSE;
    if (peak_luminance > 0) {
        info.intensity_target = (float)peak_luminance;
    }
    JxlEncoderFrameSettings *settings = NULL;
    if (JxlEncoderSetBasicInfo(encoder, &info) != JXL_ENC_SUCCESS ||
        JxlEncoderSetColorEncoding(encoder, &encoding) != JXL_ENC_SUCCESS ||
        (settings = JxlEncoderFrameSettingsCreate(encoder, NULL)) == NULL ||
        JxlEncoderSetFrameDistance(settings, (float)distance) != JXL_ENC_SUCCESS ||
        (effort > 0 && JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, effort) != JXL_ENC_SUCCESS)) {
        vips_error("wi_jxl_save_hdr", "libjxl refused the image's settings");
        goto done;
    }
    JxlPixelFormat format = {(uint32_t)bands, JXL_TYPE_UINT16, JXL_NATIVE_ENDIAN, 0};
    if (JxlEncoderAddImageFrame(settings, &format, samples, (size_t)width * (size_t)height * (size_t)bands * 2) !=
        JXL_ENC_SUCCESS) {
        vips_error("wi_jxl_save_hdr", "libjxl refused the pixels");
        goto done;
    }
    JxlEncoderCloseInput(encoder);
    uint8_t chunk[65536];
    for (;;) {
        uint8_t *next = chunk;
        size_t available = sizeof chunk;
        JxlEncoderStatus result = JxlEncoderProcessOutput(encoder, &next, &available);
        wi_output_append(&out, chunk, sizeof chunk - available);
        if (out.failed) {
            vips_error("wi_jxl_save_hdr", "out of memory");
            goto done;
        }
        if (result == JXL_ENC_SUCCESS) {
            break;
        }
        if (result != JXL_ENC_NEED_MORE_OUTPUT) {
            vips_error("wi_jxl_save_hdr", "libjxl failed to encode");
            goto done;
        }
    }
    *data = out.data;
    *length = out.length;
    out.data = NULL;
    status = 0;
done:
    free(out.data);
    JxlEncoderDestroy(encoder);
    return status;
}
