// An image's metadata replaced for a saver that keeps it (strip=false): the metadata fields it
// carries (a loader's EXIF, XMP, profile, comments) removed, the ones given set.
#include "CVipsGlue.h"

#include <string.h>

// libvips' own EXIF parser, which its loaders run: it turns the block into one "exif-ifdN-Tag"
// field per tag (and sets resolution and orientation from it). Exported by libvips 8.x, absent
// from its public headers. Its savers rebuild the block from those fields and drop every tag
// that has none (a tag removed by the user), so a block set without them would lose its tags.
int vips__exif_parse(VipsImage *image);

// Fields a saver writes as metadata when not stripping (8.14: JPEG, PNG, WebP, HEIF, TIFF).
static int wi_is_metadata_field(const char *name) {
    static const char *const prefixes[] = { "exif-", "png-comment-" };
    static const char *const names[] = {
        VIPS_META_XMP_NAME, VIPS_META_IPTC_NAME, VIPS_META_ICC_NAME, VIPS_META_PHOTOSHOP_NAME,
        "jpeg-thumbnail-data", VIPS_META_ORIENTATION,
    };
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0) {
            return 1;
        }
    }
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(name, names[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

// A field's name passes or not.
typedef int (*wi_field_test)(const char *name);

typedef struct {
    wi_field_test passes;
    GSList *names;
} wi_field_collection;

static void *wi_collect_field(VipsImage *image, const char *name, GValue *value, void *collection) {
    (void)image;
    (void)value;
    wi_field_collection *fields = collection;
    if (fields->passes(name)) {
        fields->names = g_slist_prepend(fields->names, g_strdup(name));
    }
    return NULL;
}

// Removes the fields whose names pass `test` (collected first: the map walks the table).
static void wi_remove_fields(VipsImage *image, wi_field_test test) {
    wi_field_collection fields = { test, NULL };
    vips_image_map(image, wi_collect_field, &fields);
    for (GSList *item = fields.names; item != NULL; item = item->next) {
        vips_image_remove(image, item->data);
    }
    g_slist_free_full(fields.names, g_free);
}

static void wi_remove_metadata(VipsImage *image) {
    wi_remove_fields(image, wi_is_metadata_field);
}

// A field of the parsed EXIF other than its Copyright and Artist: libvips' savers rebuild the
// EXIF block from the fields, leaving out the tags that have none.
static int wi_is_exif_field_but_copyright(const char *name) {
    return vips_isprefix("exif-ifd", name) && strcmp(name, "exif-ifd0-Copyright") != 0 && strcmp(name, "exif-ifd0-Artist") != 0;
}

static void wi_set_blob(VipsImage *image, const char *name, const void *data, size_t length) {
    if (data != NULL && length > 0) {
        vips_image_set_blob_copy(image, name, data, length);
    }
}

VipsImage *wi_with_metadata(VipsImage *in, const void *exif, size_t exif_length, const void *xmp, size_t xmp_length,
                            const void *iptc, size_t iptc_length, const void *icc, size_t icc_length,
                            int exif_copyright_only) {
    wi_warnings_clear();
    VipsImage *out = NULL;
    if (vips_copy(in, &out, NULL) != 0) {
        return NULL;
    }
    wi_remove_metadata(out);
    wi_set_blob(out, VIPS_META_EXIF_NAME, exif, exif_length);
    // A block libexif cannot read is left out rather than failing the save. Its message is
    // cleared: left in libvips' shared error buffer, it would be joined to the next error.
    if (vips_image_get_typeof(out, VIPS_META_EXIF_NAME) != 0 && vips__exif_parse(out) != 0) {
        vips_error_clear();
        wi_remove_metadata(out);
    } else if (exif_copyright_only) {
        wi_remove_fields(out, wi_is_exif_field_but_copyright);
    }
    // The pixels are upright: the EXIF orientation the savers write is 1.
    vips_image_set_int(out, VIPS_META_ORIENTATION, 1);
    wi_set_blob(out, VIPS_META_XMP_NAME, xmp, xmp_length);
    wi_set_blob(out, VIPS_META_IPTC_NAME, iptc, iptc_length);
    wi_set_blob(out, VIPS_META_ICC_NAME, icc, icc_length);
    return out;
}

void *wi_profile_copy(const char *name, size_t *length) {
    wi_warnings_clear();
    VipsBlob *blob = NULL;
    if (vips_profile_load(name, &blob, NULL) != 0) {
        return NULL;
    }
    size_t size = 0;
    const void *bytes = vips_blob_get(blob, &size);
    void *copy = size > 0 ? g_memdup2(bytes, size) : NULL;
    vips_area_unref(VIPS_AREA(blob));
    *length = size;
    return copy;
}
