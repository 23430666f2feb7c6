/* SPDX-License-Identifier: Apache-2.0 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#pragma GCC visibility push(hidden)
#include "load_on_use.h"

int ik_library_load(struct ik_library *library, const char **error) {
    void *handle = __atomic_load_n(&library->handle, __ATOMIC_ACQUIRE);
    if (handle == NULL) {
        handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            const char *why = dlerror();
            snprintf(library->error, sizeof library->error, "cannot load %s %s: %s",
                     library->owner, library->soname, why ? why : "unknown error");
            if (error) *error = library->error;
            return -1;
        }
        __atomic_store_n(&library->handle, handle, __ATOMIC_RELEASE);
    }
    return 0;
}

void *ik_library_function(struct ik_library *library, const char *name) {
    const char *error = NULL;
    if (ik_library_load(library, &error) != 0) {
        fprintf(stderr, "inkkiosk: %s\n", error);
        abort();
    }
    void *f = dlsym(__atomic_load_n(&library->handle, __ATOMIC_ACQUIRE), name);
    if (f == NULL) {
        fprintf(stderr, "inkkiosk: %s %s has no %s\n", library->owner, library->soname, name);
        abort();
    }
    return f;
}

#pragma GCC visibility pop
