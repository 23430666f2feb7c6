/* SPDX-License-Identifier: Apache-2.0 */
/* The PDF helper's cage and its channel to the kiosk: seccomp (libseccomp), Landlock,
 * no_new_privs, spawning into a session of its own, and descriptors passed over a socket.
 * Thin wrappers: prctl, syscall and seccomp_rule_add are variadic, Landlock's structs are
 * packed and CMSG_* are macros, none of which Swift can use directly. */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <string.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/landlock.h>

static inline int ik_no_new_privs(void) { return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); }
static inline int ik_get_no_new_privs(void) { return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0); }

/* Landlock's ABI version (1: Linux 5.13), or -1 with errno (ENOSYS, EOPNOTSUPP: not built or not enabled). */
static inline int ik_landlock_abi(void) {
#ifdef SYS_landlock_create_ruleset
    return (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
#else
    errno = ENOSYS; return -1;
#endif
}
static inline int ik_landlock_ruleset(uint64_t handled) {
#ifdef SYS_landlock_create_ruleset
    struct landlock_ruleset_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.handled_access_fs = handled;
    return (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
#else
    errno = ENOSYS; return -1;
#endif
}
static inline int ik_landlock_allow_beneath(int ruleset, int dir, uint64_t access) {
#ifdef SYS_landlock_add_rule
    struct landlock_path_beneath_attr rule;
    memset(&rule, 0, sizeof rule);
    rule.allowed_access = access;
    rule.parent_fd = dir;
    return (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
#else
    errno = ENOSYS; return -1;
#endif
}
static inline int ik_landlock_restrict(int ruleset) {
#ifdef SYS_landlock_restrict_self
    return (int)syscall(SYS_landlock_restrict_self, ruleset, 0);
#else
    errno = ENOSYS; return -1;
#endif
}

static inline uint32_t ik_seccomp_errno(int e) { return SCMP_ACT_ERRNO(e); }
static inline uint32_t ik_seccomp_kill(void) { return SCMP_ACT_KILL_PROCESS; }
static inline uint32_t ik_seccomp_allow(void) { return SCMP_ACT_ALLOW; }
static inline int ik_seccomp_rule(scmp_filter_ctx ctx, uint32_t action, int nr) { return seccomp_rule_add(ctx, action, nr, 0); }
/* `action` only when (argument `arg` & mask) == value. */
static inline int ik_seccomp_rule_masked(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned arg, uint64_t mask, uint64_t value) {
    return seccomp_rule_add(ctx, action, nr, 1, SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, mask, value));
}
/* `action` only when argument `arg` == value. */
static inline int ik_seccomp_rule_equal(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned arg, uint64_t value) {
    return seccomp_rule_add(ctx, action, nr, 1, SCMP_CMP(arg, SCMP_CMP_EQ, value));
}
/* `action` only when argument `arg` == value and (argument `other` & mask) == masked. */
static inline int ik_seccomp_rule_equal_masked(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned arg, uint64_t value,
                                               unsigned other, uint64_t mask, uint64_t masked) {
    return seccomp_rule_add(ctx, action, nr, 2, SCMP_CMP(arg, SCMP_CMP_EQ, value), SCMP_CMP(other, SCMP_CMP_MASKED_EQ, mask, masked));
}
/* The filter applies to every thread of the process, not only the caller's. */
static inline int ik_seccomp_all_threads(scmp_filter_ctx ctx) { return seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1); }

/* Starts `path` with `argv` and `envp` in a session of its own, every signal at its default
 * and unblocked, `channel` as its descriptor 3, stdin and stdout on /dev/null, stderr kept. */
static inline int ik_spawn_helper(const char *path, char *const argv[], char *const envp[], int channel, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    sigset_t none, all;
    int rc;
    if ((rc = posix_spawn_file_actions_init(&actions)) != 0) return rc;
    if ((rc = posix_spawnattr_init(&attr)) != 0) { posix_spawn_file_actions_destroy(&actions); return rc; }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, channel, 3);
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
#ifndef POSIX_SPAWN_SETSID
#define POSIX_SPAWN_SETSID 0x80
#endif
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSID);
    rc = posix_spawn(pid, path, &actions, &attr, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return rc;
}

/* Sends `length` bytes as one message with up to 4 descriptors. */
static inline ssize_t ik_send_with_fds(int socket, const void *bytes, size_t length, const int *fds, int count) {
    struct iovec io = { (void *)bytes, length };
    union { char buffer[CMSG_SPACE(4 * sizeof(int))]; struct cmsghdr align; } control;
    struct msghdr message;
    memset(&message, 0, sizeof message);
    memset(&control, 0, sizeof control);
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    if (count > 4) { errno = EINVAL; return -1; }
    if (count > 0) {
        message.msg_control = control.buffer;
        message.msg_controllen = CMSG_SPACE(count * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&message);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(count * sizeof(int));
        memcpy(CMSG_DATA(c), fds, count * sizeof(int));
    }
    return sendmsg(socket, &message, MSG_NOSIGNAL);
}

/* Receives one message into `bytes` (at most `capacity`) and up to 4 descriptors (close-on-exec)
 * into `fds`, their number in `count`. -2: the message or its descriptors did not fit (those
 * that came are closed). */
static inline ssize_t ik_receive_with_fds(int socket, void *bytes, size_t capacity, int *fds, int *count) {
    struct iovec io = { bytes, capacity };
    union { char buffer[CMSG_SPACE(4 * sizeof(int))]; struct cmsghdr align; } control;
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    message.msg_control = control.buffer;
    message.msg_controllen = sizeof control.buffer;
    *count = 0;
    ssize_t n = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    if (n < 0) return n;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < k; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            if (*count < 4) fds[(*count)++] = fd; else close(fd);
        }
    }
    if (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
        for (int i = 0; i < *count; i++) close(fds[i]);
        *count = 0;
        return -2;
    }
    return n;
}

/* Closes every descriptor from `first` on. */
static inline void ik_close_from(int first) {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)first, ~0U, 0) == 0) return;
#endif
    long top = sysconf(_SC_OPEN_MAX);
    for (long fd = first; fd < (top > 0 ? top : 1024); fd++) close((int)fd);
}
static inline int ik_set_dumpable(int on) { return prctl(PR_SET_DUMPABLE, on, 0, 0, 0); }

#include <linux/memfd.h>
/* glibc declares memfd_create and O_PATH for _GNU_SOURCE only; the module is built without it.
 * O_PATH is the same on every Linux architecture (asm-generic). */
#ifndef O_PATH
#define O_PATH 010000000
#endif
/* A memfd (close-on-exec, sealable): the page buffer and the ink shared with the helper. */
static inline int ik_memfd(const char *name) { return (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC | MFD_ALLOW_SEALING); }

/* fcntl's commands and flags that glibc declares for _GNU_SOURCE only (see above), by the values
 * of asm-generic/fcntl.h, which x86 and arm64 use. */
#define IK_F_SETOWN 8
#define IK_F_SETSIG 10
#define IK_F_SETOWN_EX 15
#define IK_F_SETLEASE 1024
#define IK_F_NOTIFY 1026
#define IK_F_DUPFD_CLOEXEC 1030
#define IK_F_ADD_SEALS 1033
#define IK_F_GET_SEALS 1034
#define IK_F_SEAL_SEAL 0x0001
#define IK_F_SEAL_SHRINK 0x0002
#define IK_F_SEAL_GROW 0x0004
#define IK_F_SEAL_WRITE 0x0008
#define IK_O_ASYNC 020000
/* ioctls that make a descriptor signal its owner (asm-generic/ioctls.h, x86's and arm64's). */
#define IK_FIOASYNC 0x5452
#define IK_FIOSETOWN 0x8901
#define IK_SIOCSPGRP 0x8902

/* fcntl with an int argument (variadic in C). */
static inline int ik_fcntl(int fd, int command, long argument) { return fcntl(fd, command, argument); }
/* ioctl with a pointer to an int (variadic in C). */
static inline int ik_ioctl_int(int fd, unsigned long request, int *value) { return ioctl(fd, request, value); }

/* glibc declares these for _GNU_SOURCE only; its own (not the raw system calls) change every thread. */
extern int setresuid(uid_t ruid, uid_t euid, uid_t suid);
extern int setresgid(gid_t rgid, gid_t egid, gid_t sgid);
/* Becomes `uid`:`gid` with no supplementary groups, for good (a process started as root). 0, or
 * -1 with errno and the step that failed in *step: 1 setgroups, 2 setgid, 3 setuid, 4 root could be had back. */
static inline int ik_become(uid_t uid, gid_t gid, int *step) {
    *step = 1; if (setgroups(0, NULL) != 0) return -1;
    *step = 2; if (setresgid(gid, gid, gid) != 0) return -1;
    *step = 3; if (setresuid(uid, uid, uid) != 0) return -1;
    *step = 4; if (setuid(0) == 0 || geteuid() == 0 || getegid() == 0) { errno = EPERM; return -1; }
    return 0;
}
/* A folder as a path only (Landlock's rules name folders by such descriptors). */
static inline int ik_open_folder(const char *path) { return open(path, O_PATH | O_CLOEXEC | O_DIRECTORY); }
