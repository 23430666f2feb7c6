/* SPDX-License-Identifier: Apache-2.0 */
/* libcurl, loaded the first time the HTTP client needs it, not by the loader at every start:
 * the kiosk's own process never makes a request, so it never maps libcurl and what it links
 * (OpenSSL's libssl, nghttp2, libssh2, …); only `inkkiosk update-agent` does.
 *
 * Each function of libcurl's that the client calls is forwarded here (CLoadOnUse says how); the
 * variadic ones (curl_easy_setopt, curl_easy_getinfo) through typed wrappers. A function newly
 * called needs its line here: without it, linking fails. */
#include <pthread.h>
#include "load_on_use.h"

#pragma GCC visibility push(hidden)
#include "shim.h"

/* libcurl4's soname on Debian 12 and 13 (libcurl4, libcurl4t64). */
static struct ik_library ik_libcurl = IK_LIBRARY("libcurl.so.4", "libcurl's");

static pthread_once_t ik_curl_once = PTHREAD_ONCE_INIT;
static CURLcode ik_curl_global = CURLE_OK;

CURLcode curl_global_init(long flags) { IK_LOADED_FUNCTION(ik_libcurl, curl_global_init); return curl_global_init_f(flags); }
static void ik_curl_global_init(void) { ik_curl_global = curl_global_init(CURL_GLOBAL_DEFAULT); }

int ik_curl_load(const char **error) {
    if (ik_library_load(&ik_libcurl, error) != 0) return -1;
    /* curl_global_init is not thread-safe in libcurl 7.x: once, here. */
    pthread_once(&ik_curl_once, ik_curl_global_init);
    if (ik_curl_global != CURLE_OK) {
        if (error) *error = "libcurl's curl_global_init failed";
        return -1;
    }
    return 0;
}

#define IK_CURL(name) IK_LOADED_FUNCTION(ik_libcurl, name)

CURL *curl_easy_init(void) { IK_CURL(curl_easy_init); return curl_easy_init_f(); }
void curl_easy_cleanup(CURL *curl) { IK_CURL(curl_easy_cleanup); curl_easy_cleanup_f(curl); }
CURLcode curl_easy_perform(CURL *curl) { IK_CURL(curl_easy_perform); return curl_easy_perform_f(curl); }
const char *curl_easy_strerror(CURLcode code) { IK_CURL(curl_easy_strerror); return curl_easy_strerror_f(code); }
struct curl_slist *curl_slist_append(struct curl_slist *list, const char *s) { IK_CURL(curl_slist_append); return curl_slist_append_f(list, s); }
void curl_slist_free_all(struct curl_slist *list) { IK_CURL(curl_slist_free_all); curl_slist_free_all_f(list); }
char *curl_version(void) { IK_CURL(curl_version); return curl_version_f(); }
const char *ik_curl_version(void) { return curl_version(); }

/* The variadic two: each wrapper passes exactly the type the option takes. */
CURLcode ik_curl_setopt_long(CURL *curl, CURLoption option, long value) { IK_CURL(curl_easy_setopt); return curl_easy_setopt_f(curl, option, value); }
CURLcode ik_curl_setopt_offset(CURL *curl, CURLoption option, curl_off_t value) { IK_CURL(curl_easy_setopt); return curl_easy_setopt_f(curl, option, value); }
CURLcode ik_curl_setopt_string(CURL *curl, CURLoption option, const char *value) { IK_CURL(curl_easy_setopt); return curl_easy_setopt_f(curl, option, value); }
CURLcode ik_curl_setopt_pointer(CURL *curl, CURLoption option, void *value) { IK_CURL(curl_easy_setopt); return curl_easy_setopt_f(curl, option, value); }

CURLcode ik_curl_set_body(CURL *curl, const uint8_t *body, size_t length) {
    IK_CURL(curl_easy_setopt);
    CURLcode c = curl_easy_setopt_f(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)length);
    if (c != CURLE_OK) return c;
    return curl_easy_setopt_f(curl, CURLOPT_COPYPOSTFIELDS, (const char *)body);
}

CURLcode ik_curl_set_write(CURL *curl, ik_curl_data_callback callback, void *context) {
    IK_CURL(curl_easy_setopt);
    CURLcode c = curl_easy_setopt_f(curl, CURLOPT_WRITEFUNCTION, callback);
    return c != CURLE_OK ? c : curl_easy_setopt_f(curl, CURLOPT_WRITEDATA, context);
}

CURLcode ik_curl_set_header(CURL *curl, ik_curl_data_callback callback, void *context) {
    IK_CURL(curl_easy_setopt);
    CURLcode c = curl_easy_setopt_f(curl, CURLOPT_HEADERFUNCTION, callback);
    return c != CURLE_OK ? c : curl_easy_setopt_f(curl, CURLOPT_HEADERDATA, context);
}

CURLcode ik_curl_set_progress(CURL *curl, ik_curl_progress_callback callback, void *context) {
    IK_CURL(curl_easy_setopt);
    CURLcode c = curl_easy_setopt_f(curl, CURLOPT_XFERINFOFUNCTION, callback);
    if (c != CURLE_OK) return c;
    c = curl_easy_setopt_f(curl, CURLOPT_XFERINFODATA, context);
    return c != CURLE_OK ? c : curl_easy_setopt_f(curl, CURLOPT_NOPROGRESS, 0L);
}

CURLcode ik_curl_info_long(CURL *curl, CURLINFO info, long *value) { IK_CURL(curl_easy_getinfo); return curl_easy_getinfo_f(curl, info, value); }
CURLcode ik_curl_info_offset(CURL *curl, CURLINFO info, curl_off_t *value) { IK_CURL(curl_easy_getinfo); return curl_easy_getinfo_f(curl, info, value); }

#pragma GCC visibility pop
