/* SPDX-License-Identifier: Apache-2.0 */
/* A shared library the kiosk does not link but loads the first time it needs it, so that the
 * loader does not map and relocate it (and what it links) at every start: libcrypto, loaded when
 * a signature is first made, and libinput with its stack (libwacom, glib, gobject, gudev, …),
 * loaded by the seat's thread after the first frame.
 *
 * Each function of the library that the kiosk calls is defined by the module that loads it, under
 * the function's own name, with the library's declaration in scope (the compiler checks that they
 * agree), and passes its arguments to the real one: IK_LOADED_FUNCTION looks it up once. Those
 * definitions must be hidden (#pragma GCC visibility push(hidden)): they are the program's, and
 * never stand in for the library's own functions within the library. */
#ifndef IK_LOAD_ON_USE_H
#define IK_LOAD_ON_USE_H

#include <stddef.h>

struct ik_library {
    /* The soname (libcrypto.so.3) and how errors name it (OpenSSL's). */
    const char *soname;
    const char *owner;
    void *handle;
    char error[512];
};

#define IK_LIBRARY(soname, owner) { (soname), (owner), NULL, { 0 } }

/* Loads the library: 0, or -1 with *error saying why (the text stays valid). Thread-safe: dlopen
 * gives a second caller the same handle. */
int ik_library_load(struct ik_library *library, const char **error);

/* The library's function `name`, loading the library first if it is not loaded yet. A library
 * that cannot be loaded, or lacks the function (an older version), ends the process with why:
 * the module's own load function is called first, and reports that as an error. */
void *ik_library_function(struct ik_library *library, const char *name);

/* In a forwarding definition of NAME: NAME_f is the real NAME, looked up at the first call (a
 * race only looks it up twice). */
#define IK_LOADED_FUNCTION(library, name) \
    static __typeof__(name) *name##_p; \
    __typeof__(name) *name##_f = __atomic_load_n(&name##_p, __ATOMIC_ACQUIRE); \
    if (name##_f == NULL) { \
        name##_f = (__typeof__(name) *)ik_library_function(&(library), #name); \
        __atomic_store_n(&name##_p, name##_f, __ATOMIC_RELEASE); \
    }

#endif
