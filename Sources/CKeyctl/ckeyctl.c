// See ckeyctl.h. Plumbing only: what is stored, and when, is decided in Swift.
#include "ckeyctl.h"

#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KEY_SPEC_USER_KEYRING -4
#define KEYCTL_SETPERM 5
#define KEYCTL_SEARCH 10
#define KEYCTL_READ 11
#define KEYCTL_SET_TIMEOUT 15
#define KEYCTL_INVALIDATE 21
// Possessor and user: view, read, write, search, link, setattr. Group and others: nothing.
#define KEY_POS_ALL 0x3f000000
#define KEY_USR_ALL 0x003f0000

static long search(const char *description) {
  long serial = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, "user", description, 0);
  return serial < 0 ? -errno : serial;
}

int kc_put(const char *description, const void *data, size_t length, unsigned timeout) {
  long serial = syscall(SYS_add_key, "user", description, data, length, KEY_SPEC_USER_KEYRING);
  if (serial < 0) return -errno;
  if (syscall(SYS_keyctl, KEYCTL_SETPERM, serial, KEY_POS_ALL | KEY_USR_ALL) < 0 ||
      syscall(SYS_keyctl, KEYCTL_SET_TIMEOUT, serial, timeout) < 0) {
    int failure = errno;
    syscall(SYS_keyctl, KEYCTL_INVALIDATE, serial);
    return -failure;
  }
  return 0;
}

long kc_get(const char *description, void *buffer, size_t capacity) {
  long serial = search(description);
  if (serial < 0) return serial;
  long length = syscall(SYS_keyctl, KEYCTL_READ, serial, buffer, capacity);
  return length < 0 ? -errno : length;
}

int kc_drop(const char *description) {
  long serial = search(description);
  if (serial < 0) return (int)serial;
  return syscall(SYS_keyctl, KEYCTL_INVALIDATE, serial) < 0 ? -errno : 0;
}
