// Every libpng function vidorient calls, one line each, with the header's own prototype (see
// CFFmpeg/FFmpegFunctions.h: a missing line is a link error, a wrong one a conflicting-types error).
// LibPNGLoader.c calls them through the table, with its own setjmp around them.
//
// FUNCTION(return type, name, (parameters), (arguments))
// VOID_FUNCTION(name, (parameters), (arguments))

FUNCTION(png_structp, png_create_read_struct, (png_const_charp user_png_ver, png_voidp error_ptr, png_error_ptr error_fn, png_error_ptr warn_fn), (user_png_ver, error_ptr, error_fn, warn_fn))
FUNCTION(png_infop, png_create_info_struct, (png_const_structrp png_ptr), (png_ptr))
VOID_FUNCTION(png_destroy_read_struct, (png_structpp png_ptr_ptr, png_infopp info_ptr_ptr, png_infopp end_info_ptr_ptr), (png_ptr_ptr, info_ptr_ptr, end_info_ptr_ptr))
VOID_FUNCTION(png_set_read_fn, (png_structrp png_ptr, png_voidp io_ptr, png_rw_ptr read_data_fn), (png_ptr, io_ptr, read_data_fn))
FUNCTION(png_voidp, png_get_io_ptr, (png_const_structrp png_ptr), (png_ptr))
FUNCTION(png_voidp, png_get_error_ptr, (png_const_structrp png_ptr), (png_ptr))
VOID_FUNCTION(png_set_crc_action, (png_structrp png_ptr, int crit_action, int ancil_action), (png_ptr, crit_action, ancil_action))
VOID_FUNCTION(png_read_info, (png_structrp png_ptr, png_inforp info_ptr), (png_ptr, info_ptr))
FUNCTION(png_uint_32, png_get_image_width, (png_const_structrp png_ptr, png_const_inforp info_ptr), (png_ptr, info_ptr))
FUNCTION(png_uint_32, png_get_image_height, (png_const_structrp png_ptr, png_const_inforp info_ptr), (png_ptr, info_ptr))
VOID_FUNCTION(png_set_expand, (png_structrp png_ptr), (png_ptr))
VOID_FUNCTION(png_set_scale_16, (png_structrp png_ptr), (png_ptr))
VOID_FUNCTION(png_set_gray_to_rgb, (png_structrp png_ptr), (png_ptr))
VOID_FUNCTION(png_set_background_fixed, (png_structrp png_ptr, png_const_color_16p background_color, int background_gamma_code, int need_expand, png_fixed_point background_gamma), (png_ptr, background_color, background_gamma_code, need_expand, background_gamma))
FUNCTION(int, png_set_interlace_handling, (png_structrp png_ptr), (png_ptr))
VOID_FUNCTION(png_read_update_info, (png_structrp png_ptr, png_inforp info_ptr), (png_ptr, info_ptr))
FUNCTION(size_t, png_get_rowbytes, (png_const_structrp png_ptr, png_const_inforp info_ptr), (png_ptr, info_ptr))
VOID_FUNCTION(png_read_image, (png_structrp png_ptr, png_bytepp image), (png_ptr, image))
