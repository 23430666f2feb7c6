/* SPDX-License-Identifier: Apache-2.0 */
/* libcurl (Debian's libcurl4, the OpenSSL flavour) for the HTTP client (InkHTTPClient): typed
 * wrappers for what Swift cannot call, curl_easy_setopt and curl_easy_getinfo being variadic.
 * The library is loaded the first time a transfer needs it (libcurl.c), not by the loader at
 * every start: the kiosk itself never makes a request, only `inkkiosk update-agent` does. */
#define CURL_DISABLE_TYPECHECK 1
#include <stdint.h>
#include <stddef.h>
#include <curl/curl.h>

/* Loads libcurl and initialises it once (curl_global_init): 0, or -1 with *error saying why
 * (the text stays valid). Called before any other function of libcurl's. */
int ik_curl_load(const char **error);

CURLcode ik_curl_setopt_long(CURL *curl, CURLoption option, long value);
CURLcode ik_curl_setopt_offset(CURL *curl, CURLoption option, curl_off_t value);
/* Strings are copied by libcurl (CURLOPT_URL, CURLOPT_CAINFO, …). */
CURLcode ik_curl_setopt_string(CURL *curl, CURLoption option, const char *value);
/* CURLOPT_HTTPHEADER, CURLOPT_WRITEDATA, …: pointers that must outlive the transfer. */
CURLcode ik_curl_setopt_pointer(CURL *curl, CURLoption option, void *value);
/* A request body of exactly `length` bytes, copied (so it may contain zero bytes). */
CURLcode ik_curl_set_body(CURL *curl, const uint8_t *body, size_t length);

/* What a transfer's callbacks call, as Swift closures cannot be C varargs. */
typedef size_t (*ik_curl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*ik_curl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                         curl_off_t ultotal, curl_off_t ulnow);
CURLcode ik_curl_set_write(CURL *curl, ik_curl_data_callback callback, void *context);
CURLcode ik_curl_set_header(CURL *curl, ik_curl_data_callback callback, void *context);
CURLcode ik_curl_set_progress(CURL *curl, ik_curl_progress_callback callback, void *context);

/* "libcurl/7.88.1 OpenSSL/3.0.17 zlib/1.2.13 …" (CURLVERSION_NOW is a macro Swift does not see). */
const char *ik_curl_version(void);

CURLcode ik_curl_info_long(CURL *curl, CURLINFO info, long *value);
CURLcode ik_curl_info_offset(CURL *curl, CURLINFO info, curl_off_t *value);
