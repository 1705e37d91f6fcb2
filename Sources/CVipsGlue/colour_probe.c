// The colour encoding a HEIF/AVIF or JPEG XL file declares, read beside libvips: libvips 8.14
// drops a HEIF file's nclx box ("heifload: ignoring nclx profile") and turns a JPEG XL colour
// encoding into an ICC profile that no longer says PQ or HLG to lcms2. Both readers parse the
// header only (libheif: the box structure; libjxl: up to the colour encoding), no pixels.

#include "CVipsGlue.h"
#include <libheif/heif.h>
#include <jxl/decode.h>
#include <string.h>

static void wi_colour_info_clear(wi_colour_info *out) {
    memset(out, 0, sizeof *out);
    out->primaries = 2;
    out->transfer = 2;
    out->matrix = 2;
}

int wi_heif_colour_info(const void *data, size_t length, wi_colour_info *out) {
    wi_colour_info_clear(out);
    struct heif_context *context = heif_context_alloc();
    if (context == NULL) {
        return -1;
    }
    int status = -1;
    struct heif_image_handle *handle = NULL;
    struct heif_error error = heif_context_read_from_memory_without_copy(context, data, length, NULL);
    if (error.code == heif_error_Ok) {
        error = heif_context_get_primary_image_handle(context, &handle);
    }
    if (error.code == heif_error_Ok && handle != NULL) {
        status = 0;
        out->bits = heif_image_handle_get_luma_bits_per_pixel(handle);
        out->has_alpha = heif_image_handle_has_alpha_channel(handle);
        struct heif_color_profile_nclx *nclx = NULL;
        struct heif_error nclx_error = heif_image_handle_get_nclx_color_profile(handle, &nclx);
        if (nclx_error.code == heif_error_Ok && nclx != NULL) {
            out->has_cicp = 1;
            out->primaries = (int)nclx->color_primaries;
            out->transfer = (int)nclx->transfer_characteristics;
            out->matrix = (int)nclx->matrix_coefficients;
            out->full_range = nclx->full_range_flag;
        }
        // libheif 1.15 hands the profile out before it checks the codes: a code it does not
        // know (a colr box from a hostile or broken file) comes back as an error with the
        // profile still allocated.
        if (nclx != NULL) {
            heif_nclx_color_profile_free(nclx);
        }
        out->has_icc = heif_image_handle_get_raw_color_profile_size(handle) > 0;
        heif_image_handle_release(handle);
    }
    heif_context_free(context);
    return status;
}

// JPEG XL's enumerations take CICP's values where both name the same thing (ISO/IEC 18181-1,
// Annex E); a custom white point or primaries, or a gamma other than 2.2, has no code point.
static int wi_jxl_to_cicp(const JxlColorEncoding *encoding, wi_colour_info *out) {
    if (encoding->color_space != JXL_COLOR_SPACE_RGB && encoding->color_space != JXL_COLOR_SPACE_GRAY) {
        return 0;
    }
    if (encoding->white_point != JXL_WHITE_POINT_D65 && encoding->white_point != JXL_WHITE_POINT_DCI) {
        return 0;
    }
    int dci = encoding->white_point == JXL_WHITE_POINT_DCI;
    switch (encoding->primaries) {
    case JXL_PRIMARIES_SRGB: out->primaries = dci ? 0 : 1; break;
    case JXL_PRIMARIES_2100: out->primaries = dci ? 0 : 9; break;
    case JXL_PRIMARIES_P3: out->primaries = dci ? 11 : 12; break;
    default: return 0;
    }
    if (encoding->color_space == JXL_COLOR_SPACE_GRAY) {
        out->primaries = dci ? 0 : 1;
    }
    if (out->primaries == 0) {
        return 0;
    }
    switch (encoding->transfer_function) {
    case JXL_TRANSFER_FUNCTION_709:
    case JXL_TRANSFER_FUNCTION_LINEAR:
    case JXL_TRANSFER_FUNCTION_SRGB:
    case JXL_TRANSFER_FUNCTION_PQ:
    case JXL_TRANSFER_FUNCTION_HLG:
        out->transfer = (int)encoding->transfer_function;
        break;
    case JXL_TRANSFER_FUNCTION_GAMMA:
        if (encoding->gamma > 0.4544 && encoding->gamma < 0.4546) {
            out->transfer = 4;  // gamma 2.2
            break;
        }
        return 0;
    default: return 0;
    }
    out->matrix = 0;  // RGB samples, no matrix
    out->full_range = 1;
    return 1;
}

int wi_jxl_colour_info(const void *data, size_t length, wi_colour_info *out) {
    wi_colour_info_clear(out);
    JxlDecoder *decoder = JxlDecoderCreate(NULL);
    if (decoder == NULL) {
        return -1;
    }
    int status = -1;
    if (JxlDecoderSubscribeEvents(decoder, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING) == JXL_DEC_SUCCESS &&
        JxlDecoderSetInput(decoder, data, length) == JXL_DEC_SUCCESS) {
        JxlDecoderCloseInput(decoder);
        for (;;) {
            JxlDecoderStatus event = JxlDecoderProcessInput(decoder);
            if (event == JXL_DEC_BASIC_INFO) {
                JxlBasicInfo info;
                if (JxlDecoderGetBasicInfo(decoder, &info) != JXL_DEC_SUCCESS) {
                    break;
                }
                out->bits = (int)info.bits_per_sample;
                out->has_alpha = info.alpha_bits > 0;
                out->peak_luminance = info.intensity_target;
            } else if (event == JXL_DEC_COLOR_ENCODING) {
                status = 0;
                JxlColorEncoding encoding;
                // The encoding of the pixels libjxl hands out (what libvips reads), which for a
                // lossy (XYB) file is the original's when it has one.
                if (JxlDecoderGetColorAsEncodedProfile(decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &encoding) ==
                    JXL_DEC_SUCCESS) {
                    out->has_cicp = wi_jxl_to_cicp(&encoding, out);
                    if (!out->has_cicp) {
                        out->primaries = out->transfer = out->matrix = 2;
                    }
                } else {
                    out->has_icc = 1;
                }
                break;
            } else {
                // An error, input cut short before the colour encoding, or success without it.
                break;
            }
        }
    }
    JxlDecoderDestroy(decoder);
    return status;
}
