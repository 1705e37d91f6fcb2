// Animated WebP, saved with libwebp's WebPAnimEncoder as libvips' webpsave does (its defaults:
// the default preset at the quality given, alpha at 100, effort 4, key frames left to libwebp),
// except that a failed save frees the encoder. libvips before 8.15.4 (Debian 12 has 8.14.1)
// keeps the encoder and its canvases, three frames' worth, after a save that fails midway
// (libvips#4107), and a save fails whenever a frame is refused by its decode budget: a server
// refusing hostile animations would grow by megabytes a refusal.

#include "CVipsGlue.h"
#include "tsan_handoff.h"

#include <limits.h>
#include <string.h>
#include <webp/encode.h>
#include <webp/mux.h>

typedef struct {
    VipsImage *image;
    int page_height;
    size_t row_bytes;
    // One frame's rows, gathered as the pipeline delivers them.
    VipsPel *frame;
    int rows;
    int page;
    int64_t timestamp_ms;
    int *delays;
    int delay_count;
    WebPConfig config;
    WebPAnimEncoder *encoder;
} wi_webp_animation;

// A frame of 10 ms or less shows for 100 ms, as in browsers and libvips' saver.
static int wi_webp_frame_delay(const wi_webp_animation *animation, int page) {
    int delay = page < animation->delay_count ? animation->delays[page] : 100;
    return delay <= 10 ? 100 : delay;
}

static int wi_webp_add_frame(wi_webp_animation *animation) {
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) {
        vips_error("wi_webp", "%s", "libwebp version mismatch");
        return -1;
    }
    picture.width = animation->image->Xsize;
    picture.height = animation->page_height;
    int stride = (int)animation->row_bytes;
    int imported = animation->image->Bands == 4 ? WebPPictureImportRGBA(&picture, animation->frame, stride)
                                                : WebPPictureImportRGB(&picture, animation->frame, stride);
    if (!imported) {
        WebPPictureFree(&picture);
        vips_error("wi_webp", "cannot allocate frame %d", animation->page);
        return -1;
    }
    int added = WebPAnimEncoderAdd(animation->encoder, &picture, (int)animation->timestamp_ms, &animation->config);
    WebPPictureFree(&picture);
    if (!added) {
        vips_error("wi_webp", "cannot encode frame %d: %s", animation->page, WebPAnimEncoderGetError(animation->encoder));
        return -1;
    }
    animation->timestamp_ms += wi_webp_frame_delay(animation, animation->page);
    animation->page += 1;
    if (animation->timestamp_ms > INT_MAX) {
        vips_error("wi_webp", "%s", "the animation is longer than WebP can time");
        return -1;
    }
    return 0;
}

// Rows arrive top to bottom, whole: a frame is encoded as soon as its last row is in. libvips
// calls this from its write-behind threads, one call at a time, ordered through GLib's locks:
// each call takes the state and hands it on (tsan_handoff.h), so TSan sees that order.
static int wi_webp_take_rows(VipsRegion *region, VipsRect *area, void *a) {
    wi_webp_animation *animation = a;
    WI_TAKEN_BY_WORKER(animation);
    int status = 0;
    for (int y = area->top; y < VIPS_RECT_BOTTOM(area); y++) {
        memcpy(animation->frame + (size_t)animation->rows * animation->row_bytes, VIPS_REGION_ADDR(region, 0, y),
               animation->row_bytes);
        animation->rows += 1;
        if (animation->rows == animation->page_height) {
            if (wi_webp_add_frame(animation) != 0) {
                status = -1;
                break;
            }
            animation->rows = 0;
        }
    }
    WI_HANDED_TO_WORKERS(animation);
    return status;
}

// The image's ICC profile, EXIF and XMP as the file's chunks.
static int wi_webp_add_metadata(VipsImage *image, WebPData *file) {
    static const char *const names[][2] = {
        { VIPS_META_ICC_NAME, "ICCP" }, { VIPS_META_EXIF_NAME, "EXIF" }, { VIPS_META_XMP_NAME, "XMP " }
    };
    WebPMux *mux = WebPMuxCreate(file, 1);
    if (mux == NULL) {
        vips_error("wi_webp", "%s", "cannot read the encoded animation back");
        return -1;
    }
    int failed = 0;
    for (size_t i = 0; !failed && i < sizeof(names) / sizeof(names[0]); i++) {
        const void *bytes;
        size_t length;
        if (vips_image_get_typeof(image, names[i][0]) && vips_image_get_blob(image, names[i][0], &bytes, &length) == 0) {
            WebPData chunk = { bytes, length };
            failed = WebPMuxSetChunk(mux, names[i][1], &chunk, 1) != WEBP_MUX_OK;
        }
    }
    WebPData assembled = { NULL, 0 };
    failed = failed || WebPMuxAssemble(mux, &assembled) != WEBP_MUX_OK;
    WebPMuxDelete(mux);
    if (failed) {
        WebPDataClear(&assembled);
        vips_error("wi_webp", "%s", "cannot add the metadata");
        return -1;
    }
    WebPDataClear(file);
    *file = assembled;
    return 0;
}

static int wi_webp_blob_free(void *bytes, void *unused) {
    (void)unused;
    WebPFree(bytes);
    return 0;
}

VipsBlob *wi_webp_save_animation(VipsImage *image, int quality, int effort, int preset, int keep_metadata) {
    wi_warnings_clear();
    int page_height = vips_image_get_page_height(image);
    if (image->BandFmt != VIPS_FORMAT_UCHAR || (image->Bands != 3 && image->Bands != 4) || page_height <= 0 ||
        image->Ysize % page_height != 0) {
        vips_error("wi_webp", "%s", "an animation is 8-bit RGB or RGBA frames of one size");
        return NULL;
    }
    if (image->Xsize > WEBP_MAX_DIMENSION || page_height > WEBP_MAX_DIMENSION) {
        vips_error("wi_webp", "frames of %dx%d pixels are larger than WebP's %d", image->Xsize, page_height,
                   WEBP_MAX_DIMENSION);
        return NULL;
    }
    wi_webp_animation animation = { .image = image, .page_height = page_height };
    animation.row_bytes = (size_t)image->Xsize * (size_t)image->Bands;
    if (vips_image_get_typeof(image, "delay") &&
        vips_image_get_array_int(image, "delay", &animation.delays, &animation.delay_count) != 0) {
        return NULL;
    }
    int loop = 0;
    if (vips_image_get_typeof(image, "loop") && vips_image_get_int(image, "loop", &loop) != 0) {
        return NULL;
    }
    WebPAnimEncoderOptions options;
    if (effort < 0 || effort > 6 || preset < WEBP_PRESET_DEFAULT || preset > WEBP_PRESET_TEXT) {
        vips_error("wi_webp", "effort %d or preset %d out of range", effort, preset);
        return NULL;
    }
    if (!WebPConfigInit(&animation.config) || !WebPConfigPreset(&animation.config, (WebPPreset)preset, (float)quality) ||
        !WebPAnimEncoderOptionsInit(&options)) {
        vips_error("wi_webp", "%s", "libwebp version mismatch");
        return NULL;
    }
    animation.config.alpha_quality = 100;
    animation.config.method = effort;
    options.anim_params.loop_count = loop;
    animation.frame = g_try_malloc(animation.row_bytes * (size_t)page_height);
    animation.encoder = animation.frame == NULL ? NULL : WebPAnimEncoderNew(image->Xsize, page_height, &options);
    if (animation.encoder == NULL) {
        vips_error("wi_webp", "cannot allocate an encoder for frames of %dx%d pixels", image->Xsize, page_height);
        g_free(animation.frame);
        return NULL;
    }
    WI_HANDED_TO_WORKERS(&animation);
    int sunk = vips_sink_disc(image, wi_webp_take_rows, &animation);
    // Back from libvips' threads, whether the sink ended or failed.
    WI_TAKEN_BY_WORKER(&animation);
    VipsBlob *blob = NULL;
    WebPData file = { NULL, 0 };
    // A failed sink has left its frame's or the encoder's error in libvips' buffer.
    if (sunk == 0) {
        if (!WebPAnimEncoderAdd(animation.encoder, NULL, (int)animation.timestamp_ms, NULL) ||
            !WebPAnimEncoderAssemble(animation.encoder, &file)) {
            vips_error("wi_webp", "cannot end the animation: %s", WebPAnimEncoderGetError(animation.encoder));
        } else if (!keep_metadata || wi_webp_add_metadata(image, &file) == 0) {
            blob = vips_blob_new(wi_webp_blob_free, file.bytes, file.size);
            file = (WebPData){ NULL, 0 };
        }
    }
    WebPDataClear(&file);
    WebPAnimEncoderDelete(animation.encoder);
    g_free(animation.frame);
    return blob;
}
