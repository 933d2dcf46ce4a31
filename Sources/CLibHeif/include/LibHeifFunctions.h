// Every libheif function vidorient calls, one line each, with libheif's own prototype (see
// CFFmpeg/FFmpegFunctions.h: a missing line is a link error, a wrong one a conflicting-types error).
//
// FUNCTION(return type, name, (parameters), (arguments))
// VOID_FUNCTION(name, (parameters), (arguments))

FUNCTION(struct heif_context *, heif_context_alloc, (void), ())
VOID_FUNCTION(heif_context_free, (struct heif_context *context), (context))
VOID_FUNCTION(heif_context_set_max_decoding_threads, (struct heif_context *ctx, int max_threads), (ctx, max_threads))
FUNCTION(struct heif_error, heif_context_read_from_file, (struct heif_context *context, const char *filename, const struct heif_reading_options *options), (context, filename, options))
FUNCTION(struct heif_error, heif_context_get_primary_image_handle, (struct heif_context *ctx, struct heif_image_handle **handle), (ctx, handle))
VOID_FUNCTION(heif_image_handle_release, (const struct heif_image_handle *handle), (handle))
FUNCTION(int, heif_image_handle_get_ispe_width, (const struct heif_image_handle *handle), (handle))
FUNCTION(int, heif_image_handle_get_ispe_height, (const struct heif_image_handle *handle), (handle))
FUNCTION(int, heif_image_handle_get_number_of_thumbnails, (const struct heif_image_handle *handle), (handle))
FUNCTION(int, heif_image_handle_get_list_of_thumbnail_IDs, (const struct heif_image_handle *handle, heif_item_id *ids, int count), (handle, ids, count))
FUNCTION(struct heif_error, heif_image_handle_get_thumbnail, (const struct heif_image_handle *main_image_handle, heif_item_id thumbnail_id, struct heif_image_handle **out_thumbnail_handle), (main_image_handle, thumbnail_id, out_thumbnail_handle))
FUNCTION(struct heif_decoding_options *, heif_decoding_options_alloc, (void), ())
VOID_FUNCTION(heif_decoding_options_free, (struct heif_decoding_options *options), (options))
FUNCTION(struct heif_error, heif_decode_image, (const struct heif_image_handle *in_handle, struct heif_image **out_img, enum heif_colorspace colorspace, enum heif_chroma chroma, const struct heif_decoding_options *options), (in_handle, out_img, colorspace, chroma, options))
FUNCTION(int, heif_image_get_width, (const struct heif_image *image, enum heif_channel channel), (image, channel))
FUNCTION(int, heif_image_get_height, (const struct heif_image *image, enum heif_channel channel), (image, channel))
FUNCTION(const uint8_t *, heif_image_get_plane_readonly, (const struct heif_image *image, enum heif_channel channel, int *out_stride), (image, channel, out_stride))
VOID_FUNCTION(heif_image_release, (const struct heif_image *image), (image))
