// The few libsecret and GLib calls the Secret Service store makes, resolved through dlsym the
// first time a keyring is used: commands that never touch the keyring (--version, --help, the
// file store) do not load libsecret, GIO, GObject or GLib at all. See csecretshim.c.
#ifndef CSECRETSHIM_H
#define CSECRETSHIM_H

#include <stddef.h>
#include <stdint.h>

// Declared here rather than taken from libsecret's and GLib's headers: a build against those
// (their pkg-config entries) would link the libraries into every run. Only opaque handles and
// the two public GLib structs whose fields the store reads.
typedef struct _GHashTable GHashTable;
typedef struct _GCancellable GCancellable;
typedef struct _SecretSchema SecretSchema;
typedef struct _SecretService SecretService;
typedef struct _SecretCollection SecretCollection;
typedef struct _SecretRetrievable SecretRetrievable;
typedef struct _SecretItem SecretItem;
typedef struct _SecretValue SecretValue;
typedef uint32_t GQuark;
typedef struct _GError { GQuark domain; int code; char *message; } GError;
typedef struct _GList { void *data; struct _GList *next; struct _GList *prev; } GList;
typedef int gboolean;
typedef char gchar;
typedef int gint;
typedef void *gpointer;
typedef const void *gconstpointer;

// The values of the libsecret and GIO enums the store passes or compares.
enum {
  SS_SCHEMA_NONE = 0,               // SecretSchemaFlags
  SS_SCHEMA_ATTRIBUTE_STRING = 0,   // SecretSchemaAttributeType
  SS_SEARCH_ALL = 1 << 1,           // SecretSearchFlags
  SS_SERVICE_NONE = 0,              // SecretServiceFlags
  SS_COLLECTION_NONE = 0,           // SecretCollectionFlags
  SS_DBUS_ERROR_SERVICE_UNKNOWN = 2, // GDBusError
  SS_ITEM_CREATE_NONE = 0,          // SecretItemCreateFlags
  SS_SECRET_ERROR_IS_LOCKED = 2,    // SecretError
  SS_SECRET_ERROR_NO_SUCH_OBJECT = 3
};
#define SS_COLLECTION_DEFAULT "default"
typedef int SecretSchemaFlags;
typedef int SecretSearchFlags;
typedef int SecretServiceFlags;
typedef int SecretCollectionFlags;

/// Loads libsecret-1.so.0 once; 0 on success, else -1 with a message in errbuf.
int ss_load(char *errbuf, size_t errlen);

GHashTable *ss_str_table_new(void);          // keys and values not owned
GHashTable *ss_str_table_new_owning(void);   // g_free on both
void ss_hash_table_insert(GHashTable *table, gpointer key, gpointer value);
gpointer ss_hash_table_lookup(GHashTable *table, gconstpointer key);
void ss_hash_table_unref(GHashTable *table);
gchar *ss_strdup(const gchar *text);
void ss_free(gpointer memory);
const gchar *ss_intern_string(const gchar *text);
void ss_object_unref(gpointer object);
void ss_object_ref(gpointer object);
void ss_list_free_objects(GList *list);
GList *ss_list_append(GList *list, gpointer data);
void ss_list_free(GList *list);
void ss_error_free(GError *error);
GQuark ss_dbus_error_quark(void);
GCancellable *ss_cancellable_new(void);
void ss_cancellable_cancel(GCancellable *cancellable);

SecretSchema *ss_schema_newv(const gchar *name, SecretSchemaFlags flags, GHashTable *attribute_names_and_types);
void ss_schema_unref(SecretSchema *schema);
gchar *ss_password_lookupv_sync(const SecretSchema *schema, GHashTable *attributes, GCancellable *cancellable,
                                GError **error);
void ss_password_free(gchar *password);
gboolean ss_password_storev_sync(const SecretSchema *schema, GHashTable *attributes, const gchar *collection,
                                 const gchar *label, const gchar *password, GCancellable *cancellable, GError **error);
GList *ss_password_searchv_sync(const SecretSchema *schema, GHashTable *attributes, SecretSearchFlags flags,
                                GCancellable *cancellable, GError **error);
GHashTable *ss_retrievable_get_attributes(SecretRetrievable *item);
gboolean ss_password_clearv_sync(const SecretSchema *schema, GHashTable *attributes, GCancellable *cancellable,
                                 GError **error);
SecretService *ss_service_get_sync(SecretServiceFlags flags, GCancellable *cancellable, GError **error);
SecretCollection *ss_collection_for_alias_sync(SecretService *service, const gchar *alias, SecretCollectionFlags flags,
                                               GCancellable *cancellable, GError **error);
gboolean ss_collection_get_locked(SecretCollection *collection);
gchar *ss_collection_get_label(SecretCollection *collection);
gint ss_service_unlock_sync(SecretService *service, GList *objects, GCancellable *cancellable, GList **unlocked,
                            GError **error);


// Items, one by one: what lets a refresh update its item in place (Item.SetSecret) instead of
// CreateItem(replace), which some providers (KeePassXC) answer with an access dialog.
GList *ss_collection_search_sync(SecretCollection *collection, const SecretSchema *schema, GHashTable *attributes,
                                 SecretSearchFlags flags, GCancellable *cancellable, GError **error);
gboolean ss_item_get_locked(SecretItem *item);
uint64_t ss_item_get_modified(SecretItem *item);
gchar *ss_item_get_label(SecretItem *item);
const gchar *ss_object_path(gpointer proxy);  // a SecretService, SecretCollection or SecretItem's D-Bus path
gboolean ss_item_load_secret_sync(SecretItem *item, GCancellable *cancellable, GError **error);
SecretValue *ss_item_get_secret(SecretItem *item);
const gchar *ss_value_get(SecretValue *value, size_t *length);
SecretValue *ss_value_new(const gchar *secret, size_t length);  // content type text/plain
void ss_value_unref(SecretValue *value);
gboolean ss_item_set_secret_sync(SecretItem *item, SecretValue *value, GCancellable *cancellable, GError **error);
SecretItem *ss_item_create_sync(SecretCollection *collection, const SecretSchema *schema, GHashTable *attributes,
                                const gchar *label, SecretValue *value, GCancellable *cancellable, GError **error);
GQuark ss_secret_error_quark(void);
/// Drops libsecret's shared service connection: the next call connects afresh (after the
/// keyring daemon was restarted, its old session is gone).
void ss_service_disconnect(void);

// Prompts, made visible: the calls that may answer with a prompt are made here rather than
// inside libsecret, so the caller knows when a person is being asked (and can say so).

/// Service.Unlock([path]). 1 when `path` is unlocked at once; 0 when it is not, with
/// *prompt set (g_free it) when the service answered with a prompt; -1 on error.
int ss_request_unlock(SecretService *service, const char *path, GCancellable *cancellable, char **prompt,
                      GError **error);
/// Item.Delete() on `path`. 1 when deleted at once; 0 when the service answered with a prompt
/// (*prompt set); -1 on error.
int ss_request_delete(SecretService *service, const char *path, GCancellable *cancellable, char **prompt,
                      GError **error);
/// Service.CreateCollection({Label: label}, alias). 1 when created at once; 0 when the service
/// answered with a prompt (*prompt set, g_free it); -1 on error.
int ss_request_create_collection(SecretService *service, const char *label, const char *alias,
                                 GCancellable *cancellable, char **prompt, GError **error);
/// Runs a prompt: Prompt.Prompt(""), then waits for its Completed signal. 1 completed, 0
/// dismissed (the person said no, or closed it), -1 error (the Prompt call failed), -2 cancelled
/// or past `limit_ms` (the prompt is left to the person: Dismiss is never sent, see the .c),
/// -3 the service left the bus.
int ss_run_prompt(SecretService *service, const char *prompt, GCancellable *cancellable, unsigned limit_ms,
                  GError **error);
/// The Locked property of a collection or item, read from the service now (not a cached copy):
/// 1 locked, 0 not, -1 on error.
int ss_read_locked(SecretService *service, const char *path, const char *interface, GCancellable *cancellable,
                   GError **error);
/// The process id of the service's connection (to tell which provider it is); 0 when unknown.
uint32_t ss_service_pid(SecretService *service, GCancellable *cancellable);

#endif
