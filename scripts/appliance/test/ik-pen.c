// TEST ONLY (scripts/appliance/boot-test.py): a uinput copy of the Wacom Intuos5 touch M pen
// (the same device as scripts/vm/uinput_devices.py's Pen) that draws one stroke, for the
// appliance, which has no python. Built static by boot-test.py into a test archive appended to
// the appliance's initramfs; never part of the appliance itself.
//
//   ik-pen <TTY       plug the pen in, wait for "draw" (the kiosk has added it), draw, unplug
#include <fcntl.h>
#include <linux/uinput.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
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

/* Waits for the host's "draw" on stdin (the serial port): the host sends it once the kiosk has
 * logged the pen as added, so no report reaches an evdev buffer nobody reads yet. */
static void wait_for_draw(void) {
    char line[64];
    while (fgets(line, sizeof line, stdin))
        if (strncmp(line, "draw", 4) == 0) return;
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
    wait_for_draw();

    // Proximity in above the start, tip down, a wave across the tablet, tip up, out.
    const int n = 80;
    double x0 = 0.2, x1 = 0.8;
    emit(EV_ABS, ABS_X, (int)(x0 * MAX_X));
    emit(EV_ABS, ABS_Y, (int)(0.5 * MAX_Y));
    emit(EV_ABS, ABS_DISTANCE, MAX_DISTANCE / 3);
    emit(EV_ABS, ABS_PRESSURE, 0);
    emit(EV_ABS, ABS_TILT_X, 0);
    emit(EV_ABS, ABS_TILT_Y, 0);
    emit(EV_ABS, ABS_MISC, STYLUS_ID);
    emit(EV_MSC, MSC_SERIAL, SERIAL);
    emit(EV_KEY, BTN_TOOL_PEN, 1);
    sync_report();
    emit(EV_ABS, ABS_DISTANCE, 0);
    emit(EV_ABS, ABS_PRESSURE, (int)(0.7 * MAX_PRESSURE));
    emit(EV_MSC, MSC_SERIAL, SERIAL);
    emit(EV_KEY, BTN_TOUCH, 1);
    sync_report();
    for (int i = 1; i <= n; i++) {
        double t = (double)i / n;
        emit(EV_ABS, ABS_X, (int)((x0 + (x1 - x0) * t) * MAX_X));
        emit(EV_ABS, ABS_Y, (int)((0.5 + 0.12 * sin(t * 2 * M_PI)) * MAX_Y));
        emit(EV_ABS, ABS_PRESSURE, (int)((0.4 + 0.5 * t) * MAX_PRESSURE));
        emit(EV_MSC, MSC_SERIAL, SERIAL);
        sync_report();
    }
    emit(EV_ABS, ABS_PRESSURE, 0);
    emit(EV_ABS, ABS_DISTANCE, 3);
    emit(EV_MSC, MSC_SERIAL, SERIAL);
    emit(EV_KEY, BTN_TOUCH, 0);
    sync_report();
    int zero[] = {ABS_X, ABS_Y, ABS_DISTANCE, ABS_PRESSURE, ABS_TILT_X, ABS_TILT_Y, ABS_MISC};
    for (unsigned i = 0; i < sizeof zero / sizeof zero[0]; i++) emit(EV_ABS, zero[i], 0);
    emit(EV_MSC, MSC_SERIAL, SERIAL);
    emit(EV_KEY, BTN_TOOL_PEN, 0);
    sync_report();
    sleep(1);
    ioctl(fd, UI_DEV_DESTROY);
    close(fd);
    printf("@@IK-APPLIANCE-PEN drew %d reports@@\n", n + 3);
    return 0;
}
