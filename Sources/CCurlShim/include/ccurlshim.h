// Typed, non-variadic access to libcurl for Swift.
//
// Swift cannot call C variadic functions such as curl_easy_setopt and curl_easy_getinfo, so
// this shim offers one function per argument kind. libcurl itself is not linked: the first
// call to sc_load() dlopen()s libcurl.so.4 and resolves every symbol used here. Until
// sc_load() succeeded, no other function may be called.
#ifndef CCURLSHIM_H
#define CCURLSHIM_H

#include <curl/curl.h>
#include <stddef.h>

/// Loads libcurl and runs curl_global_init once (thread-safe). sc_easy_strerror and sc_version
/// may be called before it; every other function only after it succeeded. Returns 0 on success; otherwise
/// writes a one-line reason into errbuf (NUL-terminated) and returns -1.
int sc_load(char *errbuf, size_t errlen);

CURL *sc_easy_init(void);
void sc_easy_cleanup(CURL *handle);
void sc_easy_reset(CURL *handle);
CURLcode sc_easy_perform(CURL *handle);
const char *sc_easy_strerror(CURLcode code);

CURLcode sc_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode sc_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode sc_setopt_ptr(CURL *handle, CURLoption option, const void *value);
CURLcode sc_setopt_str(CURL *handle, CURLoption option, const char *value);

/// Data callback shape shared by CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION.
typedef size_t (*sc_data_callback)(char *data, size_t size, size_t nmemb, void *userdata);
CURLcode sc_setopt_write_callback(CURL *handle, sc_data_callback callback, void *userdata);
CURLcode sc_setopt_header_callback(CURL *handle, sc_data_callback callback, void *userdata);

CURLcode sc_getinfo_long(CURL *handle, CURLINFO info, long *value);
/// The field `name` ("Subject", "Issuer") of the peer's first certificate, after a transfer with
/// CURLOPT_CERTINFO, copied (truncated) into `out`; 0 when found.
int sc_certinfo_field(CURL *handle, const char *name, char *out, size_t capacity);

struct curl_slist *sc_slist_append(struct curl_slist *list, const char *string);
void sc_slist_free_all(struct curl_slist *list);

/// The libcurl version string ("7.88.1"), or NULL before sc_load().
const char *sc_version(void);

#endif
