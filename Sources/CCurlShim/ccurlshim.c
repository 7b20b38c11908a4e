// See ccurlshim.h. Everything here is plumbing: no policy lives in C.
#include "ccurlshim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static struct {
  CURLcode (*global_init)(long);
  CURL *(*easy_init)(void);
  void (*easy_cleanup)(CURL *);
  void (*easy_reset)(CURL *);
  CURLcode (*easy_perform)(CURL *);
  const char *(*easy_strerror)(CURLcode);
  CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
  CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
  struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
  void (*slist_free_all)(struct curl_slist *);
  char *(*version)(void);
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int load_status = -1;

static void *resolve(void *lib, const char *name) {
  void *symbol = dlsym(lib, name);
  if (symbol == NULL && load_error[0] == '\0') {
    snprintf(load_error, sizeof load_error, "libcurl lacks %s", name);
  }
  return symbol;
}

static void load(void) {
  // Debian and Fedora ship the OpenSSL flavour as libcurl.so.4; the unversioned name exists
  // only with the -dev package.
  const char *names[] = {"libcurl.so.4", "libcurl.so"};
  void *lib = NULL;
  for (size_t i = 0; i < sizeof names / sizeof names[0] && lib == NULL; i++) {
    lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  }
  if (lib == NULL) {
    snprintf(load_error, sizeof load_error,
             "cannot load libcurl (libcurl.so.4): install the libcurl4 package");
    return;
  }
  *(void **)&api.global_init = resolve(lib, "curl_global_init");
  *(void **)&api.easy_init = resolve(lib, "curl_easy_init");
  *(void **)&api.easy_cleanup = resolve(lib, "curl_easy_cleanup");
  *(void **)&api.easy_reset = resolve(lib, "curl_easy_reset");
  *(void **)&api.easy_perform = resolve(lib, "curl_easy_perform");
  *(void **)&api.easy_strerror = resolve(lib, "curl_easy_strerror");
  *(void **)&api.easy_setopt = resolve(lib, "curl_easy_setopt");
  *(void **)&api.easy_getinfo = resolve(lib, "curl_easy_getinfo");
  *(void **)&api.slist_append = resolve(lib, "curl_slist_append");
  *(void **)&api.slist_free_all = resolve(lib, "curl_slist_free_all");
  *(void **)&api.version = resolve(lib, "curl_version");
  if (load_error[0] != '\0') return;
  if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    snprintf(load_error, sizeof load_error, "curl_global_init failed");
    return;
  }
  load_status = 0;
}

int sc_load(char *errbuf, size_t errlen) {
  pthread_once(&load_once, load);
  if (load_status != 0 && errbuf != NULL && errlen > 0) {
    snprintf(errbuf, errlen, "%s", load_error);
  }
  return load_status;
}

CURL *sc_easy_init(void) { return api.easy_init(); }
void sc_easy_cleanup(CURL *handle) { api.easy_cleanup(handle); }
void sc_easy_reset(CURL *handle) { api.easy_reset(handle); }
CURLcode sc_easy_perform(CURL *handle) { return api.easy_perform(handle); }
const char *sc_easy_strerror(CURLcode code) {
  // Callable before sc_load(): error text is needed on paths that never loaded libcurl.
  return load_status == 0 ? api.easy_strerror(code) : "libcurl error";
}

CURLcode sc_setopt_long(CURL *handle, CURLoption option, long value) {
  return api.easy_setopt(handle, option, value);
}
CURLcode sc_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
  return api.easy_setopt(handle, option, value);
}
CURLcode sc_setopt_ptr(CURL *handle, CURLoption option, const void *value) {
  return api.easy_setopt(handle, option, value);
}
CURLcode sc_setopt_str(CURL *handle, CURLoption option, const char *value) {
  return api.easy_setopt(handle, option, value);
}
CURLcode sc_setopt_write_callback(CURL *handle, sc_data_callback callback, void *userdata) {
  CURLcode rc = api.easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
  return rc != CURLE_OK ? rc : api.easy_setopt(handle, CURLOPT_WRITEDATA, userdata);
}
CURLcode sc_setopt_header_callback(CURL *handle, sc_data_callback callback, void *userdata) {
  CURLcode rc = api.easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
  return rc != CURLE_OK ? rc : api.easy_setopt(handle, CURLOPT_HEADERDATA, userdata);
}
CURLcode sc_getinfo_long(CURL *handle, CURLINFO info, long *value) {
  return api.easy_getinfo(handle, info, value);
}

int sc_certinfo_field(CURL *handle, const char *name, char *out, size_t capacity) {
  struct curl_certinfo *info = NULL;
  if (api.easy_getinfo(handle, CURLINFO_CERTINFO, &info) != CURLE_OK || info == NULL || info->num_of_certs < 1 ||
      capacity == 0)
    return -1;
  size_t length = strlen(name);
  for (struct curl_slist *item = info->certinfo[0]; item != NULL; item = item->next) {
    if (item->data != NULL && strncmp(item->data, name, length) == 0 && item->data[length] == ':') {
      snprintf(out, capacity, "%s", item->data + length + 1);
      return 0;
    }
  }
  return -1;
}

struct curl_slist *sc_slist_append(struct curl_slist *list, const char *string) {
  return api.slist_append(list, string);
}
void sc_slist_free_all(struct curl_slist *list) { api.slist_free_all(list); }

const char *sc_version(void) { return load_status == 0 ? api.version() : NULL; }
