/* SPDX-License-Identifier: Apache-2.0 */
// TEST ONLY (scripts/appliance/boot-test.py, powercut-test.py): a uinput copy of the Wacom
// Intuos5 touch M pen (the same device as scripts/vm/uinput_devices.py's Pen), for the
// appliance, which has no python. Built static into a test archive appended to the appliance's
// initramfs; never part of the appliance itself.
//
//   ik-pen <TTY       plug the pen in, then do what the host says, one command a line:
//     draw            one wave across the tablet, unplug, exit (the boot test)
//     sign N SEED     N strokes of a signature (random from SEED) above the signature line;
//                     after each tip-up: "@@IK-PEN up K T@@" (K counts from 1 over the run, T
//                     is CLOCK_MONOTONIC in seconds, taken right after the tip-up's report)
//     tap X Y         tip down and up at X,Y (0…1 of the tablet; a button): "@@IK-PEN tap T@@"
//     stroke X0 Y0 X1 Y1 P0 P1 TX TY N
//                     one straight stroke of N reports from X0,Y0 to X1,Y1 (0…1), the pressure
//                     ramping from P0 to P1 (0…1) and the pen tilted TX, TY degrees (±63) all
//                     along; tip up and proximity out: "@@IK-PEN stroke T@@"
//     hover X Y D     the pen in proximity at X,Y, its tip up, D (0…1) of the distance range
//                     above the tablet (again: it moves there): "@@IK-PEN hover D T@@"
//     out             proximity out (after hover): "@@IK-PEN out T@@"
//     cursor          what card0's cursor plane shows (a driver with one, e.g. virtio-gpu, shows
//                     the hover preview there, where no screendump sees it): its framebuffer,
//                     position and pixels, read through DRM as root (GETFB2, MAP_DUMB):
//                     "@@IK-CURSOR fb=ID x=X y=Y w=W h=H maxa=A n=N hex=ARGB…@@" (fb=0: hidden)
//   (the arm64 boot test, scripts/appliance/boot-test-arm64.py, uses the last three)
//   The host sends a command only once the kiosk has added the pen (its log line), so no
//   report reaches an evdev buffer nobody reads yet.
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#if __has_include(<drm/drm_mode.h>)
#include <drm/drm.h>
#include <drm/drm_mode.h>
#define IK_HAVE_DRM 1
#elif __has_include(<libdrm/drm_mode.h>)
#include <libdrm/drm.h>
#include <libdrm/drm_mode.h>
#define IK_HAVE_DRM 1
#endif
#include <linux/uinput.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define MAX_X 44704
#define MAX_Y 27940
#define MAX_PRESSURE 2047
#define MAX_DISTANCE 63
#define SERIAL 0x2280C3D8
#define STYLUS_ID 0x802

static int fd;

static void emit(int type, int code, int value) {
    struct input_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = type;
    ev.code = code;
    ev.value = value;
    if (write(fd, &ev, sizeof ev) != sizeof ev) perror("ik-pen: write");
}

static void sync_report(void) {
    emit(EV_SYN, SYN_REPORT, 0);
    struct timespec ts = {0, 5 * 1000 * 1000};  // 200 Hz, like the real tablet
    nanosleep(&ts, NULL);
}

static double monotonic(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long long rng_state;
static double rnd(void) {  // 0…1, reproducible from the host's seed
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) / (double)(1ULL << 53);
}

static void pen_in(double x, double y) {
    emit(EV_ABS, ABS_X, (int)(x * MAX_X));
    emit(EV_ABS, ABS_Y, (int)(y * MAX_Y));
    emit(EV_ABS, ABS_DISTANCE, MAX_DISTANCE / 3);
    emit(EV_ABS, ABS_PRESSURE, 0);
    emit(EV_ABS, ABS_TILT_X, 0);
    emit(EV_ABS, ABS_TILT_Y, 0);
    emit(EV_ABS, ABS_MISC, STYLUS_ID);
    emit(EV_MSC, MSC_SERIAL, SERIAL);
    emit(EV_KEY, BTN_TOOL_PEN, 1);
    sync_report();
}

static void pen_down(double pressure) {
    emit(EV_ABS, ABS_DISTANCE, 0);
    emit(EV_ABS, ABS_PRESSURE, (int)(pressure * MAX_PRESSURE));
    emit(EV_MSC, MSC_SERIAL, SERIAL);
    emit(EV_KEY, BTN_TOUCH, 1);
    sync_report();
}

static void pen_move(double x, double y, double pressure) {
    emit(EV_ABS, ABS_X, (int)(x * MAX_X));
    emit(EV_ABS, ABS_Y, (int)(y * MAX_Y));
    emit(EV_ABS, ABS_PRESSURE, (int)(pressure * MAX_PRESSURE));
    emit(EV_MSC, MSC_SERIAL, SERIAL);
    sync_report();
}

/* Tip up; returns the time right after its report was handed to the kernel. */
static double pen_up(void) {
    emit(EV_ABS, ABS_PRESSURE, 0);
    emit(EV_ABS, ABS_DISTANCE, 3);
    emit(EV_MSC, MSC_SERIAL, SERIAL);
    emit(EV_KEY, BTN_TOUCH, 0);
    emit(EV_SYN, SYN_REPORT, 0);
    double t = monotonic();
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
    return t;
}

/* Proximity out; the position is left where it was (a tip-up glitch is another test's). */
static void pen_out(void) {
    emit(EV_ABS, ABS_DISTANCE, 0);
    emit(EV_ABS, ABS_MISC, 0);
    emit(EV_MSC, MSC_SERIAL, SERIAL);
    emit(EV_KEY, BTN_TOOL_PEN, 0);
    sync_report();
}

static int strokes_done;

/* One stroke of a signature: a loop or a wave, 20–45 reports (100–225 ms at 200 Hz), between
 * y 0.25 and 0.65 of the tablet: above the signature line, clear of the buttons. */
static void signature_stroke(void) {
    double x = 0.12 + 0.6 * rnd(), y = 0.3 + 0.25 * rnd();
    double len = 0.05 + 0.15 * rnd(), amp = 0.02 + 0.06 * rnd(), turns = 0.5 + 2 * rnd();
    int n = 20 + (int)(25 * rnd());
    pen_in(x, y);
    pen_down(0.5);
    for (int i = 1; i <= n; i++) {
        double t = (double)i / n;
        pen_move(x + len * t, y + amp * sin(t * turns * 2 * M_PI), 0.45 + 0.4 * sin(t * M_PI));
    }
    double up = pen_up();
    pen_out();
    printf("@@IK-PEN up %d %.6f@@\n", ++strokes_done, up);
    fflush(stdout);
}

static void tap(double x, double y) {
    pen_in(x, y);
    pen_down(0.6);
    pen_move(x, y, 0.6);
    double up = pen_up();
    pen_out();
    printf("@@IK-PEN tap %.6f@@\n", up);
    fflush(stdout);
}

static int tilt_units(double degrees) {  // ABS_TILT_X/Y: -64…63, resolution 57 units per radian
    int u = (int)lround(degrees * M_PI / 180.0 * 57.0);
    return u < -64 ? -64 : u > 63 ? 63 : u;
}

static double clamp01(double v) { return v < 0 ? 0 : v > 1 ? 1 : v; }

/* A straight stroke with a pressure ramp and a constant tilt (the arm64 boot test's). */
static void ramp_stroke(double x0, double y0, double x1, double y1, double p0, double p1, double tx, double ty, int n) {
    if (n < 2) n = 2;
    pen_in(x0, y0);
    emit(EV_ABS, ABS_TILT_X, tilt_units(tx));
    emit(EV_ABS, ABS_TILT_Y, tilt_units(ty));
    sync_report();
    pen_down(clamp01(p0));
    for (int i = 1; i <= n; i++) {
        double t = (double)i / n;
        emit(EV_ABS, ABS_TILT_X, tilt_units(tx));
        emit(EV_ABS, ABS_TILT_Y, tilt_units(ty));
        pen_move(x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, clamp01(p0 + (p1 - p0) * t));
    }
    double up = pen_up();
    pen_out();
    printf("@@IK-PEN stroke %.6f@@\n", up);
    fflush(stdout);
}

/* Hovering: in proximity (the first time), tip up, at distance d of the range. */
static int hovering;
static void hover(double x, double y, double d) {
    if (!hovering) {
        pen_in(x, y);
        hovering = 1;
    }
    emit(EV_ABS, ABS_X, (int)(x * MAX_X));
    emit(EV_ABS, ABS_Y, (int)(y * MAX_Y));
    emit(EV_ABS, ABS_DISTANCE, (int)lround(clamp01(d) * MAX_DISTANCE));
    emit(EV_ABS, ABS_PRESSURE, 0);
    emit(EV_MSC, MSC_SERIAL, SERIAL);
    sync_report();
    printf("@@IK-PEN hover %.3f %.6f@@\n", d, monotonic());
    fflush(stdout);
}

#ifdef IK_HAVE_DRM
/* The value of the property `name` of a DRM object (and 0 when it has none). */
static uint64_t drm_prop(int card, uint32_t obj, uint32_t type, const char *name) {
    uint32_t ids[64];
    uint64_t vals[64];
    struct drm_mode_obj_get_properties gp;
    memset(&gp, 0, sizeof gp);
    gp.obj_id = obj;
    gp.obj_type = type;
    gp.props_ptr = (uintptr_t)ids;
    gp.prop_values_ptr = (uintptr_t)vals;
    gp.count_props = 64;
    if (ioctl(card, DRM_IOCTL_MODE_OBJ_GETPROPERTIES, &gp) < 0) return 0;
    for (uint32_t i = 0; i < gp.count_props && i < 64; i++) {
        struct drm_mode_get_property p;
        memset(&p, 0, sizeof p);
        p.prop_id = ids[i];
        if (ioctl(card, DRM_IOCTL_MODE_GETPROPERTY, &p) == 0 && strcmp(p.name, name) == 0) return vals[i];
    }
    return 0;
}

#define IK_CLIENT_CAP_CURSOR_PLANE_HOTSPOT 6  /* DRM_CLIENT_CAP_CURSOR_PLANE_HOTSPOT, Linux 6.8 */

/* card0's cursor plane: position, framebuffer and its pixels (the hover preview on a driver with
 * a cursor plane never reaches QEMU's screendump). Root may map another client's buffer. */
static void cursor_report(void) {
    int card = open("/dev/dri/card0", O_RDWR | O_CLOEXEC);
    if (card < 0) { perror("ik-pen: /dev/dri/card0"); printf("@@IK-CURSOR error@@\n"); fflush(stdout); return; }
    // A plane's FB_ID, CRTC_X and CRTC_Y are atomic properties: listed only to atomic clients
    // (the cap implies universal planes, which lists the cursor plane at all). Virtual GPUs'
    // cursor planes (virtio-gpu, since Linux 6.8) are listed to atomic clients only when they
    // say they know cursor hotspots.
    struct drm_set_client_cap cap = {DRM_CLIENT_CAP_ATOMIC, 1};
    if (ioctl(card, DRM_IOCTL_SET_CLIENT_CAP, &cap) == 0) {
        cap.capability = IK_CLIENT_CAP_CURSOR_PLANE_HOTSPOT;
        ioctl(card, DRM_IOCTL_SET_CLIENT_CAP, &cap);
    } else {
        cap.capability = DRM_CLIENT_CAP_UNIVERSAL_PLANES;
        ioctl(card, DRM_IOCTL_SET_CLIENT_CAP, &cap);
    }
    uint32_t planes[32];
    struct drm_mode_get_plane_res res;
    memset(&res, 0, sizeof res);
    res.plane_id_ptr = (uintptr_t)planes;
    res.count_planes = 32;
    int found = 0;
    if (ioctl(card, DRM_IOCTL_MODE_GETPLANERESOURCES, &res) == 0) {
        for (uint32_t i = 0; i < res.count_planes && i < 32 && !found; i++) {
            if (drm_prop(card, planes[i], DRM_MODE_OBJECT_PLANE, "type") != 2) continue;  // DRM_PLANE_TYPE_CURSOR
            found = 1;
            uint32_t fb = (uint32_t)drm_prop(card, planes[i], DRM_MODE_OBJECT_PLANE, "FB_ID");
            int x = (int)(int64_t)drm_prop(card, planes[i], DRM_MODE_OBJECT_PLANE, "CRTC_X");
            int y = (int)(int64_t)drm_prop(card, planes[i], DRM_MODE_OBJECT_PLANE, "CRTC_Y");
            if (!fb) { printf("@@IK-CURSOR fb=0@@\n"); break; }
            struct drm_mode_fb_cmd2 f;
            memset(&f, 0, sizeof f);
            f.fb_id = fb;
            struct drm_mode_map_dumb map;
            memset(&map, 0, sizeof map);
            if (ioctl(card, DRM_IOCTL_MODE_GETFB2, &f) < 0 || !f.handles[0]) { perror("ik-pen: GETFB2"); printf("@@IK-CURSOR error@@\n"); break; }
            map.handle = f.handles[0];
            size_t len = (size_t)f.pitches[0] * f.height;
            uint8_t *px = MAP_FAILED;
            if (ioctl(card, DRM_IOCTL_MODE_MAP_DUMB, &map) == 0)
                px = mmap(NULL, len, PROT_READ, MAP_SHARED, card, (off_t)map.offset);
            if (px == MAP_FAILED) { perror("ik-pen: mapping the cursor"); printf("@@IK-CURSOR error@@\n"); break; }
            unsigned maxa = 0, n = 0;
            printf("@@IK-CURSOR fb=%u x=%d y=%d w=%u h=%u ", fb, x, y, f.width, f.height);
            for (uint32_t r = 0; r < f.height; r++)
                for (uint32_t c = 0; c < f.width; c++) {
                    uint8_t a = px[r * f.pitches[0] + c * 4 + 3];
                    if (a) n++;
                    if (a > maxa) maxa = a;
                }
            printf("maxa=%u n=%u hex=", maxa, n);
            for (uint32_t r = 0; r < f.height; r++)
                for (uint32_t c = 0; c < f.width * 4; c++) printf("%02x", px[r * f.pitches[0] + c]);
            printf("@@\n");
            munmap(px, len);
            struct drm_gem_close gc = {f.handles[0], 0};
            ioctl(card, DRM_IOCTL_GEM_CLOSE, &gc);
        }
    }
    if (!found) printf("@@IK-CURSOR none@@\n");
    fflush(stdout);
    close(card);
}
#else
static void cursor_report(void) { printf("@@IK-CURSOR none@@\n"); fflush(stdout); }
#endif

/* The wave of the boot test. */
static void wave(void) {
    const int n = 80;
    double x0 = 0.2, x1 = 0.8;
    pen_in(x0, 0.5);
    pen_down(0.7);
    for (int i = 1; i <= n; i++) {
        double t = (double)i / n;
        pen_move(x0 + (x1 - x0) * t, 0.5 + 0.12 * sin(t * 2 * M_PI), 0.4 + 0.5 * t);
    }
    pen_up();
    int zero[] = {ABS_X, ABS_Y, ABS_DISTANCE, ABS_PRESSURE, ABS_TILT_X, ABS_TILT_Y, ABS_MISC};
    for (unsigned i = 0; i < sizeof zero / sizeof zero[0]; i++) emit(EV_ABS, zero[i], 0);
    emit(EV_MSC, MSC_SERIAL, SERIAL);
    emit(EV_KEY, BTN_TOOL_PEN, 0);
    sync_report();
    sleep(1);
    ioctl(fd, UI_DEV_DESTROY);
    close(fd);
    printf("@@IK-APPLIANCE-PEN drew %d reports@@\n", n + 3);
}

static void abs_setup(int code, int min, int max, int fuzz, int res) {
    struct uinput_abs_setup a;
    memset(&a, 0, sizeof a);
    a.code = code;
    a.absinfo.minimum = min;
    a.absinfo.maximum = max;
    a.absinfo.fuzz = fuzz;
    a.absinfo.resolution = res;
    ioctl(fd, UI_SET_ABSBIT, code);
    if (ioctl(fd, UI_ABS_SETUP, &a) < 0) perror("ik-pen: UI_ABS_SETUP");
}

int main(void) {
    fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK);
    if (fd < 0) { perror("ik-pen: /dev/uinput"); return 1; }
    ioctl(fd, UI_SET_EVBIT, EV_KEY);
    ioctl(fd, UI_SET_EVBIT, EV_ABS);
    ioctl(fd, UI_SET_EVBIT, EV_MSC);
    ioctl(fd, UI_SET_EVBIT, EV_REL);
    int keys[] = {BTN_LEFT, BTN_RIGHT, BTN_MIDDLE, BTN_SIDE, BTN_EXTRA, BTN_TOOL_PEN, BTN_TOOL_RUBBER,
                  BTN_TOOL_BRUSH, BTN_TOOL_PENCIL, BTN_TOOL_AIRBRUSH, BTN_TOOL_MOUSE, BTN_TOOL_LENS,
                  BTN_TOUCH, BTN_STYLUS, BTN_STYLUS2};
    for (unsigned i = 0; i < sizeof keys / sizeof keys[0]; i++) ioctl(fd, UI_SET_KEYBIT, keys[i]);
    ioctl(fd, UI_SET_RELBIT, REL_WHEEL);
    ioctl(fd, UI_SET_MSCBIT, MSC_SERIAL);
    ioctl(fd, UI_SET_PROPBIT, INPUT_PROP_POINTER);
    abs_setup(ABS_X, 0, MAX_X, 4, 200);
    abs_setup(ABS_Y, 0, MAX_Y, 4, 200);
    abs_setup(ABS_Z, -900, 899, 0, 287);
    abs_setup(ABS_WHEEL, 0, 1023, 0, 0);
    abs_setup(ABS_PRESSURE, 0, MAX_PRESSURE, 0, 0);
    abs_setup(ABS_DISTANCE, 0, MAX_DISTANCE, 0, 0);
    abs_setup(ABS_TILT_X, -64, 63, 0, 57);
    abs_setup(ABS_TILT_Y, -64, 63, 0, 57);
    abs_setup(ABS_THROTTLE, -1023, 1023, 0, 0);
    abs_setup(ABS_MISC, 0, 0, 0, 0);
    ioctl(fd, UI_SET_PHYS, "usb-0000:00:14.0-1/input0");
    struct uinput_setup setup;
    memset(&setup, 0, sizeof setup);
    setup.id.bustype = BUS_USB;
    setup.id.vendor = 0x056a;
    setup.id.product = 0x0027;
    setup.id.version = 0x0110;
    snprintf(setup.name, sizeof setup.name, "Wacom Intuos5 touch M Pen");
    if (ioctl(fd, UI_DEV_SETUP, &setup) < 0 || ioctl(fd, UI_DEV_CREATE) < 0) {
        perror("ik-pen: create");
        return 1;
    }
    printf("@@IK-APPLIANCE-PEN plugged@@\n");
    fflush(stdout);
    // The serial port echoes what the host types into the middle of the guest's lines: off.
    struct termios tio;
    if (tcgetattr(0, &tio) == 0) {
        tio.c_lflag &= ~(ECHO | ECHONL);
        tcsetattr(0, TCSANOW, &tio);
    }

    // Unbuffered, so that poll() on the descriptor tells whether a command is waiting.
    setvbuf(stdin, NULL, _IONBF, 0);
    char line[128];
    for (;;) {
        // A pen in proximity reports all the time, still or not (every ~5 ms here; libinput
        // takes 50 ms of silence for the pen gone): so does this one while it hovers.
        struct pollfd in = {.fd = 0, .events = POLLIN};
        while (hovering && poll(&in, 1, 0) == 0) {
            emit(EV_MSC, MSC_SERIAL, SERIAL);
            sync_report();
        }
        if (!fgets(line, sizeof line, stdin)) break;
        int n;
        unsigned long long seed;
        double x, y, x1, y1, p0, p1, tx, ty, d;
        if (sscanf(line, "stroke %lf %lf %lf %lf %lf %lf %lf %lf %d", &x, &y, &x1, &y1, &p0, &p1, &tx, &ty, &n) == 9) {
            ramp_stroke(x, y, x1, y1, p0, p1, tx, ty, n);
        } else if (sscanf(line, "hover %lf %lf %lf", &x, &y, &d) == 3) {
            hover(x, y, d);
        } else if (strncmp(line, "cursor", 6) == 0) {
            cursor_report();
        } else if (strncmp(line, "out", 3) == 0) {
            if (hovering) pen_out();
            hovering = 0;
            printf("@@IK-PEN out %.6f@@\n", monotonic());
            fflush(stdout);
        } else if (strncmp(line, "draw", 4) == 0) {
            wave();
            return 0;
        } else if (sscanf(line, "sign %d %llu", &n, &seed) == 2) {
            rng_state = seed * 2654435761ULL + 1;
            for (int i = 0; i < n; i++) {
                signature_stroke();
                // The hand moves to the next stroke: 30–150 ms.
                struct timespec ts = {0, (long)((30 + 120 * rnd()) * 1e6)};
                nanosleep(&ts, NULL);
            }
        } else if (sscanf(line, "tap %lf %lf", &x, &y) == 2) {
            tap(x, y);
        }
    }
    return 0;
}
