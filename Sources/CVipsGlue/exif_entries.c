// The tags of an EXIF block as libexif reads them (the parser libvips' loaders run): each
// tag's canonical name ("DateTimeOriginal"), its title ("Date and Time (Original)") and its
// value as libexif writes it ("8.00 EV (f/16.0)"), the names and values imgproxy's /info gives.
#include "CVipsGlue.h"

#include <limits.h>
#include <libexif/exif-data.h>
#include <libexif/exif-tag.h>

int wi_exif_entries(const void *data, size_t length, wi_exif_entry_callback callback, void *context) {
    if (data == NULL || length == 0 || length > UINT_MAX || callback == NULL) return -1;
    ExifData *exif = exif_data_new();
    if (exif == NULL) return -1;
    // What the file holds, as libvips reads it: no tag added or "fixed" to the specification.
    exif_data_unset_option(exif, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    exif_data_load_data(exif, data, (unsigned int)length);
    for (int ifd = 0; ifd < EXIF_IFD_COUNT; ifd++) {
        // IFD1 describes the embedded thumbnail: its tags (XResolution, Compression) would
        // shadow the image's own under the same names.
        if (ifd == EXIF_IFD_1) continue;
        ExifContent *content = exif->ifd[ifd];
        if (content == NULL) continue;
        for (unsigned int index = 0; index < content->count; index++) {
            ExifEntry *entry = content->entries[index];
            if (entry == NULL) continue;
            const char *name = exif_tag_get_name_in_ifd(entry->tag, (ExifIfd)ifd);
            const char *title = exif_tag_get_title_in_ifd(entry->tag, (ExifIfd)ifd);
            if (name == NULL || title == NULL) continue;
            char value[1024] = { 0 };
            exif_entry_get_value(entry, value, sizeof(value));
            callback(ifd, name, title, value, context);
        }
    }
    exif_data_unref(exif);
    return 0;
}
