// See csecretshim.h. Everything here is plumbing: no policy lives in C. The functions have
// their own names (ss_…): definitions named like libsecret's could interpose on libsecret's
// own calls once it is loaded.
#include "csecretshim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

typedef unsigned int (*GHashFunc)(gconstpointer);
typedef gboolean (*GEqualFunc)(gconstpointer, gconstpointer);
typedef void (*GDestroyNotify)(gpointer);
typedef unsigned int guint;

static struct {
  GHashTable *(*hash_table_new)(GHashFunc, GEqualFunc);
  GHashTable *(*hash_table_new_full)(GHashFunc, GEqualFunc, GDestroyNotify, GDestroyNotify);
  gboolean (*hash_table_insert)(GHashTable *, gpointer, gpointer);
  gpointer (*hash_table_lookup)(GHashTable *, gconstpointer);
  void (*hash_table_unref)(GHashTable *);
  guint (*str_hash)(gconstpointer);
  gboolean (*str_equal)(gconstpointer, gconstpointer);
  gchar *(*strdup)(const gchar *);
  void (*free)(gpointer);
  const gchar *(*intern_string)(const gchar *);
  void (*object_unref)(gpointer);
  void (*list_free_full)(GList *, GDestroyNotify);
  GList *(*list_append)(GList *, gpointer);
  void (*list_free)(GList *);
  void (*error_free)(GError *);
  GQuark (*dbus_error_quark)(void);
  GCancellable *(*cancellable_new)(void);
  void (*cancellable_cancel)(GCancellable *);
  SecretSchema *(*schema_newv)(const gchar *, SecretSchemaFlags, GHashTable *);
  void (*schema_unref)(SecretSchema *);
  gchar *(*password_lookupv_sync)(const SecretSchema *, GHashTable *, GCancellable *, GError **);
  void (*password_free)(gchar *);
  gboolean (*password_storev_sync)(const SecretSchema *, GHashTable *, const gchar *, const gchar *, const gchar *,
                                   GCancellable *, GError **);
  GList *(*password_searchv_sync)(const SecretSchema *, GHashTable *, SecretSearchFlags, GCancellable *, GError **);
  GHashTable *(*retrievable_get_attributes)(SecretRetrievable *);
  gboolean (*password_clearv_sync)(const SecretSchema *, GHashTable *, GCancellable *, GError **);
  SecretService *(*service_get_sync)(SecretServiceFlags, GCancellable *, GError **);
  SecretCollection *(*collection_for_alias_sync)(SecretService *, const gchar *, SecretCollectionFlags, GCancellable *,
                                                 GError **);
  gboolean (*collection_get_locked)(SecretCollection *);
  gchar *(*collection_get_label)(SecretCollection *);
  gint (*service_unlock_sync)(SecretService *, GList *, GCancellable *, GList **, GError **);
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int load_status = -1;

static void *resolve(void *lib, const char *name) {
  // dlsym on libsecret's handle also finds GLib's, GObject's and GIO's symbols: they are its
  // dependencies, loaded with it.
  void *symbol = dlsym(lib, name);
  if (symbol == NULL && load_error[0] == '\0') snprintf(load_error, sizeof load_error, "libsecret lacks %s", name);
  return symbol;
}

#define RESOLVE(field, name) (*(void **)&api.field = resolve(lib, name))

static void load(void) {
  void *lib = dlopen("libsecret-1.so.0", RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    snprintf(load_error, sizeof load_error, "cannot load libsecret (libsecret-1.so.0): install the libsecret-1-0 package");
    return;
  }
  RESOLVE(hash_table_new, "g_hash_table_new");
  RESOLVE(hash_table_new_full, "g_hash_table_new_full");
  RESOLVE(hash_table_insert, "g_hash_table_insert");
  RESOLVE(hash_table_lookup, "g_hash_table_lookup");
  RESOLVE(hash_table_unref, "g_hash_table_unref");
  RESOLVE(str_hash, "g_str_hash");
  RESOLVE(str_equal, "g_str_equal");
  RESOLVE(strdup, "g_strdup");
  RESOLVE(free, "g_free");
  RESOLVE(intern_string, "g_intern_string");
  RESOLVE(object_unref, "g_object_unref");
  RESOLVE(list_free_full, "g_list_free_full");
  RESOLVE(list_append, "g_list_append");
  RESOLVE(list_free, "g_list_free");
  RESOLVE(error_free, "g_error_free");
  RESOLVE(dbus_error_quark, "g_dbus_error_quark");
  RESOLVE(cancellable_new, "g_cancellable_new");
  RESOLVE(cancellable_cancel, "g_cancellable_cancel");
  RESOLVE(schema_newv, "secret_schema_newv");
  RESOLVE(schema_unref, "secret_schema_unref");
  RESOLVE(password_lookupv_sync, "secret_password_lookupv_sync");
  RESOLVE(password_free, "secret_password_free");
  RESOLVE(password_storev_sync, "secret_password_storev_sync");
  RESOLVE(password_searchv_sync, "secret_password_searchv_sync");
  RESOLVE(retrievable_get_attributes, "secret_retrievable_get_attributes");
  RESOLVE(password_clearv_sync, "secret_password_clearv_sync");
  RESOLVE(service_get_sync, "secret_service_get_sync");
  RESOLVE(collection_for_alias_sync, "secret_collection_for_alias_sync");
  RESOLVE(collection_get_locked, "secret_collection_get_locked");
  RESOLVE(collection_get_label, "secret_collection_get_label");
  RESOLVE(service_unlock_sync, "secret_service_unlock_sync");
  if (load_error[0] == '\0') load_status = 0;
}

int ss_load(char *errbuf, size_t errlen) {
  pthread_once(&load_once, load);
  if (load_status != 0 && errbuf != NULL && errlen > 0) snprintf(errbuf, errlen, "%s", load_error);
  return load_status;
}

GHashTable *ss_str_table_new(void) { return api.hash_table_new(api.str_hash, api.str_equal); }
GHashTable *ss_str_table_new_owning(void) {
  return api.hash_table_new_full(api.str_hash, api.str_equal, api.free, api.free);
}
void ss_hash_table_insert(GHashTable *table, gpointer key, gpointer value) { api.hash_table_insert(table, key, value); }
gpointer ss_hash_table_lookup(GHashTable *table, gconstpointer key) { return api.hash_table_lookup(table, key); }
void ss_hash_table_unref(GHashTable *table) { api.hash_table_unref(table); }
gchar *ss_strdup(const gchar *text) { return api.strdup(text); }
void ss_free(gpointer memory) { api.free(memory); }
const gchar *ss_intern_string(const gchar *text) { return api.intern_string(text); }
void ss_object_unref(gpointer object) { api.object_unref(object); }
void ss_list_free_objects(GList *list) { api.list_free_full(list, api.object_unref); }
GList *ss_list_append(GList *list, gpointer data) { return api.list_append(list, data); }
void ss_list_free(GList *list) { api.list_free(list); }
void ss_error_free(GError *error) { api.error_free(error); }
GQuark ss_dbus_error_quark(void) { return api.dbus_error_quark(); }
GCancellable *ss_cancellable_new(void) { return api.cancellable_new(); }
void ss_cancellable_cancel(GCancellable *cancellable) { api.cancellable_cancel(cancellable); }

SecretSchema *ss_schema_newv(const gchar *name, SecretSchemaFlags flags, GHashTable *names) {
  return api.schema_newv(name, flags, names);
}
void ss_schema_unref(SecretSchema *schema) { api.schema_unref(schema); }
gchar *ss_password_lookupv_sync(const SecretSchema *schema, GHashTable *attributes, GCancellable *cancellable,
                                GError **error) {
  return api.password_lookupv_sync(schema, attributes, cancellable, error);
}
void ss_password_free(gchar *password) { api.password_free(password); }
gboolean ss_password_storev_sync(const SecretSchema *schema, GHashTable *attributes, const gchar *collection,
                                 const gchar *label, const gchar *password, GCancellable *cancellable, GError **error) {
  return api.password_storev_sync(schema, attributes, collection, label, password, cancellable, error);
}
GList *ss_password_searchv_sync(const SecretSchema *schema, GHashTable *attributes, SecretSearchFlags flags,
                                GCancellable *cancellable, GError **error) {
  return api.password_searchv_sync(schema, attributes, flags, cancellable, error);
}
GHashTable *ss_retrievable_get_attributes(SecretRetrievable *item) { return api.retrievable_get_attributes(item); }
gboolean ss_password_clearv_sync(const SecretSchema *schema, GHashTable *attributes, GCancellable *cancellable,
                                 GError **error) {
  return api.password_clearv_sync(schema, attributes, cancellable, error);
}
SecretService *ss_service_get_sync(SecretServiceFlags flags, GCancellable *cancellable, GError **error) {
  return api.service_get_sync(flags, cancellable, error);
}
SecretCollection *ss_collection_for_alias_sync(SecretService *service, const gchar *alias, SecretCollectionFlags flags,
                                               GCancellable *cancellable, GError **error) {
  return api.collection_for_alias_sync(service, alias, flags, cancellable, error);
}
gboolean ss_collection_get_locked(SecretCollection *collection) { return api.collection_get_locked(collection); }
gchar *ss_collection_get_label(SecretCollection *collection) { return api.collection_get_label(collection); }
gint ss_service_unlock_sync(SecretService *service, GList *objects, GCancellable *cancellable, GList **unlocked,
                            GError **error) {
  return api.service_unlock_sync(service, objects, cancellable, unlocked, error);
}
