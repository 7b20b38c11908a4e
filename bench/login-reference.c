// bench/login-reference.c — the reference for bench/login: the work `strivacity login --field …`
// does, in one C process, with the same libraries. Discovery, the authorization request (web
// mode), init, the identifier and password forms, finalize, the code exchange, the JWKS, an RS256
// check of the ID token (OpenSSL), and the token set stored in the Secret Service (libsecret).
// Not a client: it knows the local tenant's answers, and parses them with string searches.
//
//   login-reference TENANT_URL     (prints nothing; exit 0 when the sign-in was stored)
#include <curl/curl.h>
#include <libsecret/secret.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buffer { char *data; size_t size; };

static size_t collect(char *chunk, size_t size, size_t count, void *user) {
  struct buffer *b = user;
  size_t n = size * count;
  b->data = realloc(b->data, b->size + n + 1);
  memcpy(b->data + b->size, chunk, n);
  b->size += n;
  b->data[b->size] = 0;
  return n;
}

static CURL *curl;

// One request on the shared handle (connections are reused, as strivacity's are).
static char *request(const char *url, const char *bearer, const char *json, const char *form) {
  struct buffer b = {calloc(1, 1), 0};
  struct curl_slist *headers = NULL;
  char auth[512];
  curl_easy_reset(curl);
  curl_easy_setopt(curl, CURLOPT_URL, url);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &b);
  headers = curl_slist_append(headers, "Accept: application/json");
  if (bearer) {
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", bearer);
    headers = curl_slist_append(headers, auth);
  }
  if (json) {
    headers = curl_slist_append(headers, "Content-Type: application/json");
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, json);
  } else if (form) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, form);
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  CURLcode rc = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  if (rc != CURLE_OK) { fprintf(stderr, "%s: %s\n", url, curl_easy_strerror(rc)); exit(1); }
  return b.data;
}

// The string value of "key" in a flat JSON text (enough for the local tenant's answers).
static char *field(const char *json, const char *key) {
  char pattern[128];
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  const char *start = strstr(json, pattern);
  if (!start) { fprintf(stderr, "no %s in %.200s\n", key, json); exit(1); }
  start += strlen(pattern);
  const char *end = strchr(start, '"');
  return strndup(start, (size_t)(end - start));
}

static unsigned char *base64url(const char *text, size_t *length) {
  size_t n = strlen(text), padded = (n + 3) / 4 * 4;
  char *copy = calloc(padded + 1, 1);
  for (size_t i = 0; i < n; i++) copy[i] = text[i] == '-' ? '+' : text[i] == '_' ? '/' : text[i];
  for (size_t i = n; i < padded; i++) copy[i] = '=';
  unsigned char *out = calloc(padded, 1);
  int decoded = EVP_DecodeBlock(out, (unsigned char *)copy, (int)padded);
  *length = (size_t)decoded - (padded - n);
  free(copy);
  return out;
}

// RS256 over the ID token's header.payload with the JWKS key (n, e).
static int verify(const char *id_token, const char *jwks) {
  size_t n_len, e_len, sig_len;
  unsigned char *n = base64url(field(jwks, "n"), &n_len), *e = base64url(field(jwks, "e"), &e_len);
  const char *last_dot = strrchr(id_token, '.');
  unsigned char *sig = base64url(last_dot + 1, &sig_len);
  OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
  BIGNUM *bn_n = BN_bin2bn(n, (int)n_len, NULL), *bn_e = BN_bin2bn(e, (int)e_len, NULL);
  OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn_n);
  OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bn_e);
  OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
  EVP_PKEY_CTX *from = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL);
  EVP_PKEY *key = NULL;
  EVP_PKEY_fromdata_init(from);
  EVP_PKEY_fromdata(from, &key, EVP_PKEY_PUBLIC_KEY, params);
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  int ok = EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, key) == 1
    && EVP_DigestVerify(md, sig, sig_len, (const unsigned char *)id_token, (size_t)(last_dot - id_token)) == 1;
  EVP_MD_CTX_free(md);
  EVP_PKEY_free(key);
  EVP_PKEY_CTX_free(from);
  OSSL_PARAM_free(params);
  OSSL_PARAM_BLD_free(bld);
  BN_free(bn_n);
  BN_free(bn_e);
  return ok;
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: %s TENANT_URL\n", argv[0]); return 2; }
  const char *tenant = argv[1];
  const char *verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
  const char *challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
  const char *redirect = "http://127.0.0.1:49152/callback";
  char url[2048], body[2048];
  curl_global_init(CURL_GLOBAL_DEFAULT);
  curl = curl_easy_init();

  snprintf(url, sizeof url, "%s.well-known/openid-configuration", tenant);
  char *discovery = request(url, NULL, NULL, NULL);
  snprintf(url, sizeof url,
    "%s?client_id=strivacity-cli&redirect_uri=%s&response_type=code&scope=openid%%20profile%%20offline_access"
    "&code_challenge_method=S256&code_challenge=%s&state=s&nonce=n&sdk=web",
    field(discovery, "authorization_endpoint"), redirect, challenge);
  char *native = request(url, NULL, NULL, NULL);
  char *session = strdup(strstr(native, "session_id=") + strlen("session_id="));
  session[strcspn(session, "&\r\n ")] = 0;

  snprintf(url, sizeof url, "%sflow/api/v1/init", tenant);
  free(request(url, session, "{}", NULL));
  snprintf(url, sizeof url, "%sflow/api/v1/form/identifier", tenant);
  free(request(url, session, "{\"identifier\":\"demo@example.com\"}", NULL));
  snprintf(url, sizeof url, "%sflow/api/v1/form/password", tenant);
  char *finish = request(url, session, "{\"password\":\"Demo-pass-1\",\"keepMeLoggedIn\":false}", NULL);
  char *callback = request(field(finish, "finalizeUrl"), session, NULL, NULL);
  char *code = strdup(strstr(callback, "code=") + 5);
  code[strcspn(code, "&\r\n ")] = 0;

  snprintf(body, sizeof body, "grant_type=authorization_code&code=%s&redirect_uri=%s&client_id=strivacity-cli&code_verifier=%s",
    code, redirect, verifier);
  char *tokens = request(field(discovery, "token_endpoint"), NULL, NULL, body);
  char *jwks = request(field(discovery, "jwks_uri"), NULL, NULL, NULL);
  if (!verify(field(tokens, "id_token"), jwks)) { fprintf(stderr, "the ID token does not verify\n"); return 1; }

  static const SecretSchema schema = {
    "com.strivacity.bench.Reference", SECRET_SCHEMA_NONE,
    {{"profile", SECRET_SCHEMA_ATTRIBUTE_STRING}, {"issuer", SECRET_SCHEMA_ATTRIBUTE_STRING}, {NULL, 0}}};
  GError *error = NULL;
  secret_password_store_sync(&schema, SECRET_COLLECTION_DEFAULT, "bench reference", tokens, NULL, &error,
    "profile", "reference", "issuer", tenant, NULL);
  if (error) { fprintf(stderr, "keyring: %s\n", error->message); return 1; }
  curl_easy_cleanup(curl);
  return 0;
}
