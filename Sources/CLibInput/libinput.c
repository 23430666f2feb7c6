/* SPDX-License-Identifier: Apache-2.0 */
/* libinput, loaded when the seat is opened (ik_libinput_load, on the seat's thread, after the
 * first frame), not by the loader at every start: with what it links (libwacom, glib, gobject,
 * gudev, libevdev, mtdev, pcre2, libffi) it was nine of the kiosk's 35 libraries, about 30-40 ms
 * of an emulated board's start before `main`, which the first frame no longer waits for.
 *
 * Each function of libinput's that the kiosk calls is forwarded here (CLoadOnUse says how). A
 * function of libinput's that the kiosk newly calls needs its line here: without it, linking fails. */
#include "load_on_use.h"

#pragma GCC visibility push(hidden)
#include "shim.h"

/* libinput's soname since 0.x (Debian's libinput10). */
static struct ik_library ik_libinput = IK_LIBRARY("libinput.so.10", "libinput's");

int ik_libinput_load(const char **error) { return ik_library_load(&ik_libinput, error); }

#define IK_LIBINPUT(name) IK_LOADED_FUNCTION(ik_libinput, name)

int libinput_device_config_calibration_has_matrix(struct libinput_device *device) { IK_LIBINPUT(libinput_device_config_calibration_has_matrix); return libinput_device_config_calibration_has_matrix_f(device); }
enum libinput_config_status libinput_device_config_calibration_set_matrix(struct libinput_device *device, const float matrix[6]) { IK_LIBINPUT(libinput_device_config_calibration_set_matrix); return libinput_device_config_calibration_set_matrix_f(device, matrix); }
const char *libinput_device_get_name(struct libinput_device *device) { IK_LIBINPUT(libinput_device_get_name); return libinput_device_get_name_f(device); }
int libinput_device_get_size(struct libinput_device *device, double *width, double *height) { IK_LIBINPUT(libinput_device_get_size); return libinput_device_get_size_f(device, width, height); }
const char *libinput_device_get_sysname(struct libinput_device *device) { IK_LIBINPUT(libinput_device_get_sysname); return libinput_device_get_sysname_f(device); }
struct udev_device *libinput_device_get_udev_device(struct libinput_device *device) { IK_LIBINPUT(libinput_device_get_udev_device); return libinput_device_get_udev_device_f(device); }
int libinput_device_has_capability(struct libinput_device *device, enum libinput_device_capability capability) { IK_LIBINPUT(libinput_device_has_capability); return libinput_device_has_capability_f(device, capability); }
struct libinput_device *libinput_device_ref(struct libinput_device *device) { IK_LIBINPUT(libinput_device_ref); return libinput_device_ref_f(device); }
int libinput_device_tablet_pad_get_num_buttons(struct libinput_device *device) { IK_LIBINPUT(libinput_device_tablet_pad_get_num_buttons); return libinput_device_tablet_pad_get_num_buttons_f(device); }
int libinput_device_tablet_pad_get_num_rings(struct libinput_device *device) { IK_LIBINPUT(libinput_device_tablet_pad_get_num_rings); return libinput_device_tablet_pad_get_num_rings_f(device); }
int libinput_device_tablet_pad_get_num_strips(struct libinput_device *device) { IK_LIBINPUT(libinput_device_tablet_pad_get_num_strips); return libinput_device_tablet_pad_get_num_strips_f(device); }
int libinput_device_touch_get_touch_count(struct libinput_device *device) { IK_LIBINPUT(libinput_device_touch_get_touch_count); return libinput_device_touch_get_touch_count_f(device); }
struct libinput_device *libinput_device_unref(struct libinput_device *device) { IK_LIBINPUT(libinput_device_unref); return libinput_device_unref_f(device); }
int libinput_dispatch(struct libinput *libinput) { IK_LIBINPUT(libinput_dispatch); return libinput_dispatch_f(libinput); }
void libinput_event_destroy(struct libinput_event *event) { IK_LIBINPUT(libinput_event_destroy); libinput_event_destroy_f(event); }
struct libinput_device *libinput_event_get_device(struct libinput_event *event) { IK_LIBINPUT(libinput_event_get_device); return libinput_event_get_device_f(event); }
struct libinput_event_keyboard *libinput_event_get_keyboard_event(struct libinput_event *event) { IK_LIBINPUT(libinput_event_get_keyboard_event); return libinput_event_get_keyboard_event_f(event); }
struct libinput_event_tablet_pad *libinput_event_get_tablet_pad_event(struct libinput_event *event) { IK_LIBINPUT(libinput_event_get_tablet_pad_event); return libinput_event_get_tablet_pad_event_f(event); }
struct libinput_event_tablet_tool *libinput_event_get_tablet_tool_event(struct libinput_event *event) { IK_LIBINPUT(libinput_event_get_tablet_tool_event); return libinput_event_get_tablet_tool_event_f(event); }
struct libinput_event_touch *libinput_event_get_touch_event(struct libinput_event *event) { IK_LIBINPUT(libinput_event_get_touch_event); return libinput_event_get_touch_event_f(event); }
enum libinput_event_type libinput_event_get_type(struct libinput_event *event) { IK_LIBINPUT(libinput_event_get_type); return libinput_event_get_type_f(event); }
uint32_t libinput_event_keyboard_get_key(struct libinput_event_keyboard *event) { IK_LIBINPUT(libinput_event_keyboard_get_key); return libinput_event_keyboard_get_key_f(event); }
enum libinput_key_state libinput_event_keyboard_get_key_state(struct libinput_event_keyboard *event) { IK_LIBINPUT(libinput_event_keyboard_get_key_state); return libinput_event_keyboard_get_key_state_f(event); }
uint32_t libinput_event_keyboard_get_seat_key_count(struct libinput_event_keyboard *event) { IK_LIBINPUT(libinput_event_keyboard_get_seat_key_count); return libinput_event_keyboard_get_seat_key_count_f(event); }
uint64_t libinput_event_keyboard_get_time_usec(struct libinput_event_keyboard *event) { IK_LIBINPUT(libinput_event_keyboard_get_time_usec); return libinput_event_keyboard_get_time_usec_f(event); }
uint32_t libinput_event_tablet_pad_get_button_number(struct libinput_event_tablet_pad *event) { IK_LIBINPUT(libinput_event_tablet_pad_get_button_number); return libinput_event_tablet_pad_get_button_number_f(event); }
enum libinput_button_state libinput_event_tablet_pad_get_button_state(struct libinput_event_tablet_pad *event) { IK_LIBINPUT(libinput_event_tablet_pad_get_button_state); return libinput_event_tablet_pad_get_button_state_f(event); }
uint64_t libinput_event_tablet_pad_get_time_usec(struct libinput_event_tablet_pad *event) { IK_LIBINPUT(libinput_event_tablet_pad_get_time_usec); return libinput_event_tablet_pad_get_time_usec_f(event); }
uint32_t libinput_event_tablet_tool_get_button(struct libinput_event_tablet_tool *event) { IK_LIBINPUT(libinput_event_tablet_tool_get_button); return libinput_event_tablet_tool_get_button_f(event); }
enum libinput_button_state libinput_event_tablet_tool_get_button_state(struct libinput_event_tablet_tool *event) { IK_LIBINPUT(libinput_event_tablet_tool_get_button_state); return libinput_event_tablet_tool_get_button_state_f(event); }
double libinput_event_tablet_tool_get_distance(struct libinput_event_tablet_tool *event) { IK_LIBINPUT(libinput_event_tablet_tool_get_distance); return libinput_event_tablet_tool_get_distance_f(event); }
double libinput_event_tablet_tool_get_pressure(struct libinput_event_tablet_tool *event) { IK_LIBINPUT(libinput_event_tablet_tool_get_pressure); return libinput_event_tablet_tool_get_pressure_f(event); }
enum libinput_tablet_tool_proximity_state libinput_event_tablet_tool_get_proximity_state(struct libinput_event_tablet_tool *event) { IK_LIBINPUT(libinput_event_tablet_tool_get_proximity_state); return libinput_event_tablet_tool_get_proximity_state_f(event); }
double libinput_event_tablet_tool_get_rotation(struct libinput_event_tablet_tool *event) { IK_LIBINPUT(libinput_event_tablet_tool_get_rotation); return libinput_event_tablet_tool_get_rotation_f(event); }
double libinput_event_tablet_tool_get_slider_position(struct libinput_event_tablet_tool *event) { IK_LIBINPUT(libinput_event_tablet_tool_get_slider_position); return libinput_event_tablet_tool_get_slider_position_f(event); }
double libinput_event_tablet_tool_get_tilt_x(struct libinput_event_tablet_tool *event) { IK_LIBINPUT(libinput_event_tablet_tool_get_tilt_x); return libinput_event_tablet_tool_get_tilt_x_f(event); }
double libinput_event_tablet_tool_get_tilt_y(struct libinput_event_tablet_tool *event) { IK_LIBINPUT(libinput_event_tablet_tool_get_tilt_y); return libinput_event_tablet_tool_get_tilt_y_f(event); }
uint64_t libinput_event_tablet_tool_get_time_usec(struct libinput_event_tablet_tool *event) { IK_LIBINPUT(libinput_event_tablet_tool_get_time_usec); return libinput_event_tablet_tool_get_time_usec_f(event); }
enum libinput_tablet_tool_tip_state libinput_event_tablet_tool_get_tip_state(struct libinput_event_tablet_tool *event) { IK_LIBINPUT(libinput_event_tablet_tool_get_tip_state); return libinput_event_tablet_tool_get_tip_state_f(event); }
struct libinput_tablet_tool *libinput_event_tablet_tool_get_tool(struct libinput_event_tablet_tool *event) { IK_LIBINPUT(libinput_event_tablet_tool_get_tool); return libinput_event_tablet_tool_get_tool_f(event); }
double libinput_event_tablet_tool_get_x_transformed(struct libinput_event_tablet_tool *event, uint32_t width) { IK_LIBINPUT(libinput_event_tablet_tool_get_x_transformed); return libinput_event_tablet_tool_get_x_transformed_f(event, width); }
double libinput_event_tablet_tool_get_y_transformed(struct libinput_event_tablet_tool *event, uint32_t height) { IK_LIBINPUT(libinput_event_tablet_tool_get_y_transformed); return libinput_event_tablet_tool_get_y_transformed_f(event, height); }
int32_t libinput_event_touch_get_seat_slot(struct libinput_event_touch *event) { IK_LIBINPUT(libinput_event_touch_get_seat_slot); return libinput_event_touch_get_seat_slot_f(event); }
uint64_t libinput_event_touch_get_time_usec(struct libinput_event_touch *event) { IK_LIBINPUT(libinput_event_touch_get_time_usec); return libinput_event_touch_get_time_usec_f(event); }
double libinput_event_touch_get_x_transformed(struct libinput_event_touch *event, uint32_t width) { IK_LIBINPUT(libinput_event_touch_get_x_transformed); return libinput_event_touch_get_x_transformed_f(event, width); }
double libinput_event_touch_get_y_transformed(struct libinput_event_touch *event, uint32_t height) { IK_LIBINPUT(libinput_event_touch_get_y_transformed); return libinput_event_touch_get_y_transformed_f(event, height); }
struct libinput_event *libinput_get_event(struct libinput *libinput) { IK_LIBINPUT(libinput_get_event); return libinput_get_event_f(libinput); }
int libinput_get_fd(struct libinput *libinput) { IK_LIBINPUT(libinput_get_fd); return libinput_get_fd_f(libinput); }
void *libinput_get_user_data(struct libinput *libinput) { IK_LIBINPUT(libinput_get_user_data); return libinput_get_user_data_f(libinput); }
void libinput_log_set_handler(struct libinput *libinput, libinput_log_handler log_handler) { IK_LIBINPUT(libinput_log_set_handler); libinput_log_set_handler_f(libinput, log_handler); }
void libinput_log_set_priority(struct libinput *libinput, enum libinput_log_priority priority) { IK_LIBINPUT(libinput_log_set_priority); libinput_log_set_priority_f(libinput, priority); }
uint64_t libinput_tablet_tool_get_serial(struct libinput_tablet_tool *tool) { IK_LIBINPUT(libinput_tablet_tool_get_serial); return libinput_tablet_tool_get_serial_f(tool); }
enum libinput_tablet_tool_type libinput_tablet_tool_get_type(struct libinput_tablet_tool *tool) { IK_LIBINPUT(libinput_tablet_tool_get_type); return libinput_tablet_tool_get_type_f(tool); }
int libinput_tablet_tool_has_distance(struct libinput_tablet_tool *tool) { IK_LIBINPUT(libinput_tablet_tool_has_distance); return libinput_tablet_tool_has_distance_f(tool); }
int libinput_tablet_tool_has_pressure(struct libinput_tablet_tool *tool) { IK_LIBINPUT(libinput_tablet_tool_has_pressure); return libinput_tablet_tool_has_pressure_f(tool); }
int libinput_tablet_tool_has_rotation(struct libinput_tablet_tool *tool) { IK_LIBINPUT(libinput_tablet_tool_has_rotation); return libinput_tablet_tool_has_rotation_f(tool); }
int libinput_tablet_tool_has_slider(struct libinput_tablet_tool *tool) { IK_LIBINPUT(libinput_tablet_tool_has_slider); return libinput_tablet_tool_has_slider_f(tool); }
int libinput_tablet_tool_has_tilt(struct libinput_tablet_tool *tool) { IK_LIBINPUT(libinput_tablet_tool_has_tilt); return libinput_tablet_tool_has_tilt_f(tool); }
int libinput_udev_assign_seat(struct libinput *libinput, const char *seat_id) { IK_LIBINPUT(libinput_udev_assign_seat); return libinput_udev_assign_seat_f(libinput, seat_id); }
struct libinput *libinput_udev_create_context(const struct libinput_interface *interface, void *user_data, struct udev *udev) { IK_LIBINPUT(libinput_udev_create_context); return libinput_udev_create_context_f(interface, user_data, udev); }
struct libinput *libinput_unref(struct libinput *libinput) { IK_LIBINPUT(libinput_unref); return libinput_unref_f(libinput); }

#pragma GCC visibility pop
