// Non-variadic entry points into libvips for Swift, which cannot call C variadic functions,
// and libvips images computed by our kernels (CBitmapKernels) region by region.
// Every function returning an object returns it with a +1 reference (release with
// g_object_unref / vips_area_unref) or NULL after pushing a message to libvips' error buffer
// (read it with wi_error_copy).
#ifndef CVIPSGLUE_H
#define CVIPSGLUE_H

#include <stddef.h>
#include <stdint.h>
#include <vips/vips.h>

/// Starts libvips once per process: operation cache off, `concurrency` worker threads per
/// pipeline (0 keeps libvips' default). Returns 0 on success.
int wi_init(const char *argv0, int concurrency);

/// The text of libvips' error buffer, cleared, then the warnings libvips logged on this thread
/// since the failing call began (libpng's reasons arrive as warnings); free with g_free.
char *wi_error_copy(void);
/// Adds `message` to libvips' error buffer under `domain` (vips_error, which is variadic).
void wi_error_push(const char *domain, const char *message);
/// Forgets the warnings libvips logged on this thread, so that the next failure's message
/// carries only its own (every function here that can fail calls it first).
void wi_warnings_clear(void);

/// Runs the loader `operation` (e.g. "jpegload_buffer") on a private copy of the bytes.
/// `options` is libvips' argument syntax ("shrink=2,access=sequential"), may be NULL.
/// `option_string`, when not NULL, sets the operation's "option_string" argument (the options
/// thumbnail_buffer hands to the loader it runs), which cannot be written inside `options`.
VipsImage *wi_load_buffer(const char *operation, const void *data, size_t length, const char *options,
                          const char *option_string);

/// Runs `operation` on one input image (argument "in") and returns its "out" image.
VipsImage *wi_call(const char *operation, VipsImage *in, const char *options);

/// Like `wi_call`, for operations whose input argument has another name (extract_area's "input").
VipsImage *wi_call_named(const char *operation, const char *input_name, VipsImage *in, const char *options);

/// 1 when `operation` names a libvips operation that maps one image ("in") to another ("out")
/// and is not a loader or saver (which read and write files), else 0. Sets no error.
int wi_is_image_filter(const char *operation);

/// Runs `operation` on two input images, set as the arguments `first_name` and `second_name`
/// (e.g. composite2's "base" and "overlay"), and returns its "out" image.
VipsImage *wi_call2(const char *operation, const char *first_name, VipsImage *first, const char *second_name,
                    VipsImage *second, const char *options);

/// libvips' find_trim: the box (left, top, width, height) holding what differs from
/// `background` (`count` values, one a band) by more than `threshold`. Returns 0 on success.
int wi_find_trim(VipsImage *in, double threshold, const double *background, int count, int *left, int *top,
                 int *width, int *height);

/// Runs a saver (e.g. "jpegsave_buffer") and returns its encoded bytes.
VipsBlob *wi_save_buffer(const char *operation, VipsImage *in, const char *options);

/// Saves an animation strip (8-bit RGB or RGBA frames top to bottom; "page-height", with
/// "delay" and "loop" when set) as an animated WebP at `quality` (1...100), libwebp's `effort`
/// (its method, 0...6) and `preset` (a WebPPreset, as libvips' webpsave numbers them), with its
/// ICC profile, EXIF and XMP when `keep_metadata`. Unlike libvips' webpsave before 8.15.4, it
/// frees everything it allocated when the save fails.
VipsBlob *wi_webp_save_animation(VipsImage *image, int quality, int effort, int preset, int keep_metadata);

/// Blends alpha away onto an RGB background.
VipsImage *wi_flatten(VipsImage *in, double red, double green, double blue);

/// Appends a constant band (an opaque alpha channel).
VipsImage *wi_add_constant_band(VipsImage *in, double value);

/// Stacks equally sized images top to bottom, libvips' layout for animation.
VipsImage *wi_join_vertically(VipsImage **images, int count);

/// A copy of `in` carrying animation metadata (page-height, delay in ms, loop).
VipsImage *wi_with_animation(VipsImage *in, int page_height, const int *delays, int count, int loop);

/// A copy of `in` for a saver run with strip=false: its metadata fields (EXIF, XMP, IPTC, ICC
/// profile, comments, orientation) replaced by the blobs given (NULL or empty: none), the EXIF
/// parsed as libvips' loaders parse it (left out when it cannot be), orientation 1. With
/// `exif_copyright_only`, only the EXIF's Copyright and Artist tags are kept.
VipsImage *wi_with_metadata(VipsImage *in, const void *exif, size_t exif_length, const void *xmp, size_t xmp_length,
                            const void *iptc, size_t iptc_length, const void *icc, size_t icc_length,
                            int exif_copyright_only);

/// A copy (g_free it) of one of libvips' built-in ICC profiles ("srgb", "cmyk", "p3"); NULL
/// with libvips' error.
void *wi_profile_copy(const char *name, size_t *length);

/// Wraps RGBA/RGB/grey 8-bit pixels without copying. `release(owner)` runs when the image
/// (and so every image computed from it) is gone: the owner keeps the pixels alive till then.
VipsImage *wi_image_from_memory(const void *pixels, size_t length, int width, int height, int bands,
                                void *owner, void (*release)(void *));

/// A black 8-bit image of that size that is never computed: operations run on it to learn the
/// size they would give (their headers), without pixels.
VipsImage *wi_placeholder(int width, int height, int bands);

/// `text` rendered by libvips (Pango) in `font` (a Pango font description, "sans 12") at 72 dpi,
/// so that a point is a pixel: a one-band 8-bit image of the glyphs' coverage (0 none, 255
/// full), as large as the text's ink; NULL with libvips' error on failure.
VipsImage *wi_text(const char *text, const char *font);

/// Computes the image in the calling thread, tile by tile, into a new g_malloc'd buffer of
/// `*length` bytes (rows packed); NULL with libvips' error on failure.
void *wi_render(VipsImage *image, size_t *length);

/// Computes the 8-bit RGB or RGBA `image` in the calling thread, tile by tile, as RGBA (an
/// opaque alpha added) into the file `fd` from `offset` on, rows packed, without holding it
/// whole: a child renderer's answer. 0, or -1 with libvips' error.
int wi_render_rgba8_to_file(VipsImage *image, int fd, off_t offset);

/// Computes the 8-bit RGBA `image` tile by tile onto the RGBA8 canvas (`canvas_width` x
/// `canvas_height`, rows packed) with its top-left corner at (`x`, `y`): replacing the pixels
/// there, or blended over them ("source over") when `blend`. Returns 0, or -1 with libvips'
/// error (the canvas may then hold part of the image).
int wi_canvas_draw(VipsImage *image, uint8_t *canvas, int canvas_width, int canvas_height, int x, int y, int blend);

/// Computes frame `index` of an animation into `pixels` (RGBA8, rows packed); 0 on success.
typedef int (*wi_frame_fill)(void *context, int index, uint8_t *pixels);

/// A lazy 8-bit sRGB RGBA image of `count` frames of `width` x `frame_height`, top to bottom,
/// each computed by `fill` when its rows are first read; one frame is held at a time (reading
/// back to an earlier frame computes it again). `release(context)` runs when the image is gone
/// (or at once, on failure). NULL with libvips' error.
VipsImage *wi_frames_lazy(int width, int frame_height, int count, void *context, wi_frame_fill fill, void (*release)(void *));

/// Computes rows `top` to `top + count - 1` of an image into `rows` (`stride` bytes apart); 0
/// on success.
typedef int (*wi_rows_fill)(void *context, int top, int count, uint8_t *rows, size_t stride);
/// Why the last fill failed.
typedef const char *(*wi_rows_message)(void *context);

/// A lazy image with the fields and metadata of `like` (an image a libvips loader made from the
/// same file, its header read), its rows computed by `fill` `width` x `height` (at least
/// `like`'s size; cropped to it), top to bottom, each once, in strips of 8 (a sequential line
/// cache, as libvips' jpegload reads); a failure says `message`'s reason. `release(context)`
/// runs when the image is gone (or at once, on failure). NULL with libvips' error.
VipsImage *wi_rows_lazy(VipsImage *like, int width, int height, void *context, wi_rows_fill fill,
                        wi_rows_message message, void (*release)(void *));

/// A still WebP's rows, decoded by libwebp (as libvips' webpload decodes: RGBA, row jobs asked
/// for, scaled by libwebp to `width` x `height` when that is not its size) in the thread that
/// asks for the first rows, where a budget sees the decode (libvips' loader decodes in its
/// workers, into a temporary image): a wi_rows_fill for wi_rows_lazy, `bands` 3 (alpha
/// dropped) or 4. The reader keeps a copy of the bytes; NULL when out of memory or given a bad
/// size.
typedef struct wi_webp_reader wi_webp_reader;
wi_webp_reader *wi_webp_reader_new(const uint8_t *webp, size_t length, int width, int height, int bands);
/// A wi_rows_fill; `reader` is a wi_webp_reader.
int wi_webp_reader_rows(void *reader, int top, int count, uint8_t *rows, size_t stride);
/// Why the reader failed ("stopped midway": a spent budget ended libwebp's decode).
const char *wi_webp_reader_message(void *reader);
void wi_webp_reader_free(void *reader);
/// Decodes a still WebP whole at its size (as wi_webp_reader does) straight into the file `fd`
/// (a memory file), from `offset` on, rows packed RGBA, sizing the file to fit: a child
/// renderer's answer, with no copy held beside it. 0 with its size, or -1 with libvips' error.
int wi_webp_decode_to_file(const uint8_t *webp, size_t length, int fd, off_t offset, int *width, int *height);

/// Integer metadata, or `fallback` when absent.
int wi_get_int(VipsImage *image, const char *name, int fallback);

/// Integer array metadata (e.g. "delay"): number of items copied into `out`, at most `capacity`.
int wi_get_int_array(VipsImage *image, const char *name, int *out, int capacity);

/// True when the image carries an ICC profile.
int wi_has_icc(VipsImage *image);

/// Computes an 8-bit RGB or RGBA image as wi_render does into a new RGBA8 bitmap (g_free
/// it), an opaque alpha added to RGB as the pixels are computed; NULL with libvips' error on
/// failure.
void *wi_render_rgba8(VipsImage *image, size_t *length);

/// A lazy libvips image of 8-bit RGBA or opaque RGB `in` resized by wi_resample_rgba8 to
/// `width` x `height` (each at most `in`'s), RGBA, computed strip by strip when read; NULL
/// with libvips' error.
VipsImage *wi_resample_lazy(VipsImage *in, int width, int height, int premultiply);

/// A lazy libvips image of 8-bit RGB `in` with an opaque alpha band added (`add` nonzero), or of
/// 8-bit RGBA `in` without its alpha band, converted region by region when read; NULL with
/// libvips' error.
VipsImage *wi_alpha_band_lazy(VipsImage *in, int add);

/// A lazy libvips image of 8-bit RGBA `in` with its colours multiplied by alpha (`premultiply`
/// nonzero) or divided by it, in 8 bits (wi_premultiply_rgba8, wi_unpremultiply_rgba8),
/// converted region by region when read; NULL with libvips' error.
VipsImage *wi_alpha_weight_lazy(VipsImage *in, int premultiply);

/// A lazy libvips image of 8-bit RGBA `in` rounded as wi_round_corners_rgba8 rounds a bitmap,
/// computed region by region when read; NULL with libvips' error. With `premultiplied`, `in`
/// is 8-bit premultiplied and every band is scaled, not only the alpha.
VipsImage *wi_round_corners_lazy(VipsImage *in, double radius, unsigned corners, int premultiplied);

/// A time budget shared by the pipelines of one decode (budget.c): CPU time counted as their
/// pixels are computed. Reference counted: `wi_budget_new` returns one reference.
typedef struct wi_budget wi_budget;

/// The domain of the error a spent budget stops a pipeline with.
#define WI_BUDGET_DOMAIN "wi_budget"

/// A budget of `limit_ns` nanoseconds of CPU time.
wi_budget *wi_budget_new(int64_t limit_ns);
/// The calling thread's watch of the budgets it makes (`WorkBudget.attributingStops`); NULL: none.
void *wi_budget_watch_get(void);
void wi_budget_watch_set(void *watch);
void wi_budget_unref(wi_budget *budget);
/// The CPU time counted so far, in nanoseconds.
int64_t wi_budget_used_ns(wi_budget *budget);
/// The CPU time the calling thread has used, in nanoseconds.
int64_t wi_thread_cpu_ns(void);
/// What a thread counted into before `wi_budget_counting_begin`, to go back to at its end.
typedef struct {
    wi_budget *budget;
} wi_budget_counting;
/// Counts the calling thread's own CPU time into `budget` (which must outlive the count) until
/// `wi_budget_counting_end`, the work between the budget's images included (theirs they count
/// themselves): as it goes, at each region of the budget's images computed in this thread and
/// at `wi_budget_checkpoint`, so that long work between regions is seen as it spends the budget.
wi_budget_counting wi_budget_counting_begin(wi_budget *budget);
/// Counts what is left of the count begun with the `wi_budget_counting_begin` that returned
/// `previous`, and goes back to counting into `previous` (from now).
void wi_budget_counting_end(wi_budget_counting previous);
/// Counts the calling thread's work so far when it counts into `budget`; then 1 once the
/// budget is spent, else 0.
int wi_budget_checkpoint(wi_budget *budget);

/// From inside a loader's work: counts the calling thread's CPU time so far into every budget
/// whose region it is computing (wi_budget_lazy) and the one it counts its own work into
/// (wi_budget_counting_begin), when a millisecond has passed since it last did; then 1 when one
/// of them is spent, else 0 (also when the thread works under none). For loaders that call back
/// as they go: a stop there lands within the work between two calls (and a millisecond), not
/// at the end of the region.
int wi_budget_poll(void);

/// 1 when the calling thread computes a region of a budget's image or counts its own work into
/// a budget (wi_budget_poll has something to read), else 0.
int wi_budget_active(void);

/// Makes libwebp's lossy decoder run its row jobs in the calling thread when that thread works
/// under a budget, and end the decode once the budget is spent (webp_budget.c). Once per
/// process, before any WebP is read (wi_init calls it).
void wi_webp_budget_install(void);

/// `in` as it is (fields, metadata, pixels), its regions computed under `budget` (which the
/// image holds a reference to): each counts the CPU time its input took, and once the budget
/// is spent every region asked for fails with a WI_BUDGET_DOMAIN error. NULL with libvips'
/// error.
VipsImage *wi_budget_lazy(VipsImage *in, wi_budget *budget);

/// A new anonymous file in memory (memfd_create, closed on exec), or -1 with errno.
int wi_memory_file(const char *name);

/// Runs the program at `path` with `argv` (NULL-terminated) in a child process, its standard
/// input `input_fd` (read from the file's current offset) and its standard output `output_fd`;
/// what it writes to standard error is kept in `message` (at most `capacity` - 1 bytes, then a
/// NUL). Waits for it to end, killing it (SIGKILL) once `timeout_ms` of wall time have passed;
/// `*status` is then waitpid's status. Returns 0 when it ended by itself, 1 when it was killed,
/// -1 with errno when it could not be started.
int wi_run_child(const char *path, char *const argv[], int input_fd, int output_fd, int timeout_ms, int *status,
                 char *message, size_t capacity);

/// Ends this process with SIGPROF once it has used `milliseconds` of CPU time since it was
/// spawned, all its threads counted: what its start (the exec, the runtime) used already is
/// taken off the timer (setitimer's ITIMER_PROF, at least 1 ms; SIGPROF's default action ends
/// the process). 0 on success.
int wi_limit_cpu_time(int64_t milliseconds);

/// How liborc's code memory is kept consistent in this process (orc_lock.c).
typedef enum {
    /// liborc is not loaded (libvips built without it): nothing to lock.
    WI_ORC_ABSENT = 0,
    /// liborc 0.4.34 or later: it locks its own code memory.
    WI_ORC_LOCKED_BY_LIBORC = 1,
    /// An earlier liborc: every program compile and free runs under our lock.
    WI_ORC_LOCKED_HERE = 2,
    /// An earlier liborc, left unlocked because WEBIMAGE_LIBORC_LOCK=off (to measure the lock's
    /// cost; the race is then back).
    WI_ORC_TURNED_OFF = 3,
} wi_orc_lock_mode;

/// Resolves liborc's entry points and picks the mode from its version (call before the first
/// libvips pipeline; later calls return the same). `liborc_version`, when not NULL, receives
/// the version string ("" when absent), owned by this module.
wi_orc_lock_mode wi_orc_lock_install(const char **liborc_version);

/// How many liborc compile and free calls came through orc_lock.c so far.
long wi_orc_lock_routed_calls(void);

/// glibc's `mallopt(M_ARENA_MAX, count)` (not in Swift's Glibc module): 1 when set, 0 otherwise.
int wi_malloc_arena_max(int count);

/// The colour encoding a file declares, as CICP code points (ITU-T H.273; 2 = unspecified).
typedef struct {
    int primaries, transfer, matrix, full_range;
    /// 1 when the file declares them (a HEIF nclx box, a JPEG XL encoded colour space).
    int has_cicp;
    /// 1 when it carries an ICC profile instead (or beside, in HEIF).
    int has_icc;
    /// Bits a sample as stored (luma's in HEIF).
    int bits;
    int has_alpha;
    /// The luminance the file says its brightest signal stands for (JPEG XL's
    /// intensity_target, cd/m²), 0 when it says none.
    double peak_luminance;
} wi_colour_info;

/// The colour encoding of a HEIF/AVIF file's primary image, through libheif (boxes only, no
/// pixels). Returns 0, or -1 when libheif cannot read the file.
int wi_heif_colour_info(const void *data, size_t length, wi_colour_info *out);
/// The colour encoding of a JPEG XL file's pixels as libjxl hands them out, through libjxl
/// (headers only). Returns 0, or -1 when libjxl cannot read that far.
int wi_jxl_colour_info(const void *data, size_t length, wi_colour_info *out);

/// `in` (8- or 16-bit, 1 to 4 bands, in the encoding of CICP `transfer` and `primaries`, full
/// signal at `signal_max` for 16-bit samples) as 8-bit sRGB with alpha kept, lazily, region by
/// region: PQ and HLG tone mapped, other primaries mapped into sRGB's gamut (CBitmapKernels'
/// wi_tone_map_shared). The ICC profile is dropped.
VipsImage *wi_tone_map_lazy(VipsImage *in, int transfer, int primaries, int signal_max, double peak_luminance);

/// 16-bit RGB or RGBA `samples` (full signal at 65535, in CICP `primaries` and `transfer`)
/// encoded as AVIF (`av1`, always 12 bits: see hdr_save.c) or HEIC at `bits` (10 or 12) with an
/// nclx box saying so, at libheif
/// `quality` 0...100 and `effort` 0...9 (libvips' scale; -1 the encoder's default), through
/// libheif. Returns 0 with `*data` (free with free()) or -1.
int wi_heif_save_hdr(const uint16_t *samples, int width, int height, int bands, int av1, int bits, int quality,
                     int effort, int primaries, int transfer, void **data, size_t *length);
/// The same as JPEG XL at butteraugli `distance` (0 lossless) and `effort` 1...9 (-1 libjxl's
/// default, 7), its colour encoding set from `primaries` and `transfer` and its intensity
/// target from `peak_luminance` (0: libjxl's).
int wi_jxl_save_hdr(const uint16_t *samples, int width, int height, int bands, double distance, int effort,
                    int primaries, int transfer, double peak_luminance, void **data, size_t *length);

/// Called by wi_exif_entries for each tag: its IFD (0, 2 EXIF, 3 GPS, 4 interoperability), its
/// canonical name, its title and its value as libexif writes them.
typedef void (*wi_exif_entry_callback)(int ifd, const char *name, const char *title, const char *value, void *context);
/// Reads the EXIF block `data` ("Exif\0\0" and a TIFF header) with libexif and calls `callback`
/// for each tag it knows, but the thumbnail's (IFD1). Returns 0, or -1 when it cannot start.
int wi_exif_entries(const void *data, size_t length, wi_exif_entry_callback callback, void *context);

#endif
