// The Linux kernel key retention service (keyrings(7)), for the access-token cache: add_key and
// keyctl by system call (no libkeyutils). Keys of type "user" in the calling user's keyring.
#ifndef CKEYCTL_H
#define CKEYCTL_H

#include <stddef.h>

/// Stores `data` under `description`, replacing an earlier payload, readable and writable by
/// this user only, expiring after `timeout` seconds. 0, or -errno.
int kc_put(const char *description, const void *data, size_t length, unsigned timeout);

/// Copies the payload of `description` into `buffer`; its length (which may exceed `capacity`:
/// then nothing useful was copied), or -errno (-ENOKEY when there is none).
long kc_get(const char *description, void *buffer, size_t capacity);

/// Removes `description` at once. 0, or -errno (-ENOKEY when there was none).
int kc_drop(const char *description);

#endif
