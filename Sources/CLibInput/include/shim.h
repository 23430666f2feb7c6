/* SPDX-License-Identifier: Apache-2.0 */
/* libinput for InkInput's seat, and udev, which it takes its devices from. libinput is not
 * linked: libinput.c loads it (and libwacom, glib, gobject, gudev, libevdev, mtdev, … with it) when
 * the seat is opened, on the seat's own thread, so that the loader does not map and relocate nine
 * libraries before the kiosk's first frame. */
#include <libinput.h>
#include <libudev.h>
#include <stdarg.h>
#include <stdio.h>

/* Loads libinput: 0, or -1 with *error saying why (the text stays valid). Called before any other
 * function of libinput's (LibinputSeat does, first thing). */
int ik_libinput_load(const char **error);

/* libinput's log handler takes a va_list, which Swift cannot; this formats the message and
 * hands it to a plain callback. The sink is the context's user data. */
struct ik_log_sink {
    void (*fn)(void *ctx, int priority, const char *message);
    void *ctx;
};

static inline void ik_libinput_log(struct libinput *li, enum libinput_log_priority priority,
                                   const char *format, va_list args) {
    struct ik_log_sink *sink = (struct ik_log_sink *)libinput_get_user_data(li);
    char buffer[512];
    vsnprintf(buffer, sizeof buffer, format, args);
    if (sink && sink->fn) sink->fn(sink->ctx, (int)priority, buffer);
}

/* priority: the lowest libinput sends (LIBINPUT_LOG_PRIORITY_DEBUG, _INFO or _ERROR). */
static inline void ik_libinput_install_log(struct libinput *li, enum libinput_log_priority priority) {
    libinput_log_set_handler(li, ik_libinput_log);
    libinput_log_set_priority(li, priority);
}

/* EVIOCGRAB: only the grabbing fd gets the device's events; the kernel's own input handlers
 * (the VT keyboard, SysRq) no longer see them. ioctl() is variadic, which Swift cannot call. */
#include <linux/input.h>
#include <sys/ioctl.h>
static inline int ik_evdev_grab(int fd, int grab) { return ioctl(fd, EVIOCGRAB, grab); }
