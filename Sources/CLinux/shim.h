/* SPDX-License-Identifier: Apache-2.0 */
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <signal.h>
#include <termios.h>
#include <malloc.h>

/* Console ioctls: ioctl() is variadic, which Swift cannot call directly. */
static inline int ik_kd_get_mode(int fd, int *mode) { return ioctl(fd, KDGETMODE, mode); }
static inline int ik_kd_set_mode(int fd, int mode) { return ioctl(fd, KDSETMODE, mode); }
static inline int ik_kd_get_kb_mode(int fd, int *mode) { return ioctl(fd, KDGKBMODE, mode); }
static inline int ik_kd_set_kb_mode(int fd, int mode) { return ioctl(fd, KDSKBMODE, mode); }
static inline int ik_vt_get_mode(int fd, struct vt_mode *m) { return ioctl(fd, VT_GETMODE, m); }
static inline int ik_vt_set_mode(int fd, const struct vt_mode *m) { return ioctl(fd, VT_SETMODE, m); }
static inline int ik_vt_release(int fd, int how) { return ioctl(fd, VT_RELDISP, how); }
static inline int ik_vt_get_state(int fd, struct vt_stat *s) { return ioctl(fd, VT_GETSTATE, s); }
static inline int ik_vt_activate(int fd, int n) { return ioctl(fd, VT_ACTIVATE, n); }
static inline int ik_vt_wait_active(int fd, int n) { return ioctl(fd, VT_WAITACTIVE, n); }
static inline int ik_vt_lock_switch(int fd) { return ioctl(fd, VT_LOCKSWITCH, 1); }
static inline int ik_vt_unlock_switch(int fd) { return ioctl(fd, VT_UNLOCKSWITCH, 1); }
static inline int ik_kd_text(void) { return KD_TEXT; }
static inline int ik_kd_graphics(void) { return KD_GRAPHICS; }
static inline int ik_kb_off(void) { return K_OFF; }
static inline int ik_vt_process(void) { return VT_PROCESS; }
static inline int ik_vt_auto(void) { return VT_AUTO; }
static inline int ik_vt_ackacq(void) { return VT_ACKACQ; }

/* The calling thread's id (setpriority on it changes that thread alone). */
#include <sys/syscall.h>
#include <unistd.h>
static inline int ik_gettid(void) { return (int)syscall(SYS_gettid); }
/* A signal to one thread of another process (tgkill), as a fault in that thread would be. */
static inline int ik_tgkill(int pid, int tid, int sig) { return (int)syscall(SYS_tgkill, pid, tid, sig); }

/* The calling thread's name (ps -L, /proc/self/task/N/comm, backtraces); prctl is variadic. */
#include <sys/prctl.h>
static inline int ik_set_thread_name(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }
/* Whether the process may dump core, and be read through /proc or ptrace by its own user. */
static inline int ik_set_dumpable(int on) { return prctl(PR_SET_DUMPABLE, on, 0, 0, 0); }

/* The kernel's watchdog API (Documentation/watchdog/watchdog-api.rst). The request numbers come
 * from the kernel's own header, so they are right on every architecture (_IOR/_IOWR differ). */
#include <linux/watchdog.h>
static inline int ik_watchdog_set_timeout(int fd, int *seconds) { return ioctl(fd, WDIOC_SETTIMEOUT, seconds); }
static inline int ik_watchdog_get_timeout(int fd, int *seconds) { return ioctl(fd, WDIOC_GETTIMEOUT, seconds); }
static inline int ik_watchdog_keepalive(int fd) { int unused = 0; return ioctl(fd, WDIOC_KEEPALIVE, &unused); }
static inline unsigned long ik_wdioc_settimeout(void) { return (unsigned long)WDIOC_SETTIMEOUT; }
static inline unsigned long ik_wdioc_keepalive(void) { return (unsigned long)WDIOC_KEEPALIVE; }
