#define _GNU_SOURCE
#include "cpeercred.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>

int pc_peer(int fd, uint32_t *uid, int32_t *pid) {
  struct ucred cred;
  socklen_t length = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0) return -1;
  *uid = cred.uid;
  *pid = cred.pid;
  return 0;
}

int pc_not_dumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

int pc_accept(int fd) { return accept4(fd, NULL, NULL, SOCK_CLOEXEC); }

int pc_lock_memory(void) {
  struct rlimit limit;
  if (getrlimit(RLIMIT_MEMLOCK, &limit) != 0 || limit.rlim_cur != RLIM_INFINITY) return 1;
  return mlockall(MCL_CURRENT | MCL_FUTURE) == 0 ? 0 : -1;
}

int pc_spawn_detached(const char *path, char *const argv[], char *const envp[], int *pid) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID);
  pid_t child = 0;
  int result = posix_spawn(&child, path, &actions, &attributes, argv, envp);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (result == 0) *pid = child;
  return result;
}
