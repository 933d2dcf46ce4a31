// libpng on first use, as CFreeType/FreeTypeLoader.c does for FreeType: the functions listed in
// include/LibPNGFunctions.h are resolved from libpng16.so.16 the first time a PNG's pixels are
// needed, and the calls below (shim.h) make them, through the table. libpng reports an error by
// calling back and expecting a longjmp, which Swift cannot take: each call below sets its own
// jump. Reading a PNG's tags never needs libpng (VidorientPhoto walks the chunks itself), so
// `fix`, `inspect` and the audit never map it. No trampolines: libpng declares its functions with
// default visibility, which a hidden definition cannot redeclare.

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "shim.h"

// libpng 1.6's soname (PNG_LIBPNG_VER_DLLNUM and PNG_LIBPNG_VER_SONUM, both 16).
_Static_assert(PNG_LIBPNG_VER_SONUM == 16, "LibPNGLoader.c names libpng16.so.16: update LIBRARY_SONAME");

#define LIBRARY_TITLE "libpng"
#define LIBRARY_SONAME "libpng16.so.16"
#define LIBRARY_FUNCTIONS "LibPNGFunctions.h"
#define LIBRARY_LOAD vo_libpng_load
#define LIBRARY_CALLS_THROUGH_TABLE
#include <LibraryLoader.inc>

struct vo_png {
    png_structp png;
    png_infop info;
    const uint8_t *data;
    size_t size, offset;
    jmp_buf jump;
    char message[256];
};

// libpng's error: its words kept for the caller, then back to the call's setjmp.
static void on_error(png_structp png_ptr, png_const_charp message) {
    vo_png *png = real.png_get_error_ptr(png_ptr);
    snprintf(png->message, sizeof png->message, "%s", message);
    longjmp(png->jump, 1);
}

// Warnings (a known-incorrect sRGB profile, a chunk out of place) change nothing read.
static void on_warning(png_structp png_ptr, png_const_charp message) {
    (void)png_ptr;
    (void)message;
}

static void read_bytes(png_structp png_ptr, png_bytep out, size_t count) {
    vo_png *png = real.png_get_io_ptr(png_ptr);
    if (count > png->size - png->offset) {
        snprintf(png->message, sizeof png->message, "the file ends before the picture does");
        longjmp(png->jump, 1);
    }
    memcpy(out, png->data + png->offset, count);
    png->offset += count;
}

HIDDEN void vo_png_close(vo_png *png) {
    if (png == NULL) return;
    if (png->png != NULL) real.png_destroy_read_struct(&png->png, png->info != NULL ? &png->info : NULL, NULL);
    free(png);
}

HIDDEN vo_png *vo_png_open(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height, char *error,
                           size_t length) {
    if (!atomic_load(&loaded)) {
        snprintf(error, length, "libpng is not loaded");
        return NULL;
    }
    vo_png *png = calloc(1, sizeof *png);
    if (png == NULL) {
        snprintf(error, length, "out of memory");
        return NULL;
    }
    png->data = data;
    png->size = size;
    png->png = real.png_create_read_struct(PNG_LIBPNG_VER_STRING, png, on_error, on_warning);
    if (png->png != NULL) png->info = real.png_create_info_struct(png->png);
    if (png->info == NULL) {
        snprintf(error, length, "libpng could not start");
        vo_png_close(png);
        return NULL;
    }
    if (setjmp(png->jump)) {
        snprintf(error, length, "%s", png->message);
        vo_png_close(png);
        return NULL;
    }
    real.png_set_read_fn(png->png, png, read_bytes);
    // A wrong checksum is read past, as FFmpeg, libvips and exiftool do (TestMedia's
    // damaged-png-crc.png): what the bytes show is the picture.
    real.png_set_crc_action(png->png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);
    real.png_read_info(png->png, png->info);
    *width = real.png_get_image_width(png->png, png->info);
    *height = real.png_get_image_height(png->png, png->info);
    return png;
}

HIDDEN int vo_png_read_rgb(vo_png *png, uint8_t *pixels, size_t stride, char *error, size_t length) {
    uint32_t height = real.png_get_image_height(png->png, png->info);
    png_bytep *volatile rows = NULL;
    if (setjmp(png->jump)) {
        free(rows);
        snprintf(error, length, "%s", png->message);
        return -1;
    }
    real.png_set_expand(png->png);  // a palette to RGB, grey under 8 bits to 8, tRNS to alpha
    real.png_set_scale_16(png->png);
    real.png_set_gray_to_rgb(png->png);
    png_color_16 black = {0};
    real.png_set_background_fixed(png->png, &black, PNG_BACKGROUND_GAMMA_SCREEN, 0, PNG_FP_1);
    real.png_set_interlace_handling(png->png);
    real.png_read_update_info(png->png, png->info);
    size_t row_bytes = real.png_get_rowbytes(png->png, png->info);
    if (row_bytes > stride || row_bytes != (size_t)real.png_get_image_width(png->png, png->info) * 3) {
        snprintf(error, length, "libpng gave %zu bytes a row, not RGB", row_bytes);
        return -1;
    }
    rows = malloc(sizeof(png_bytep) * (height > 0 ? height : 1));
    if (rows == NULL) {
        snprintf(error, length, "out of memory");
        return -1;
    }
    for (uint32_t y = 0; y < height; y++) rows[y] = pixels + (size_t)y * stride;
    real.png_read_image(png->png, rows);
    free(rows);
    return 0;
}
