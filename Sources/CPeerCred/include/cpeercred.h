// The few GNU calls the agent needs that Swift's Glibc module does not carry: the credentials
// of a Unix socket's peer (SO_PEERCRED, checked before a byte of a request is read), accept4,
// PR_SET_DUMPABLE, mlockall within RLIMIT_MEMLOCK, and a spawn in a new session.
#ifndef CPEERCRED_H
#define CPEERCRED_H
#include <stdint.h>

/// The peer's uid and pid as the kernel recorded them at connect(); 0 on success, -1 (errno set).
int pc_peer(int fd, uint32_t *uid, int32_t *pid);

/// prctl(PR_SET_DUMPABLE, 0): no core file, and no ptrace by other processes of the user.
int pc_not_dumpable(void);

/// accept4(fd, NULL, NULL, SOCK_CLOEXEC).
int pc_accept(int fd);

/// mlockall(MCL_CURRENT | MCL_FUTURE) when RLIMIT_MEMLOCK is unlimited (a partial lock would
/// make later allocations fail): 0 locked, 1 not tried (limited), -1 failed (errno set).
int pc_lock_memory(void);

/// posix_spawn of `path` in a new session (POSIX_SPAWN_SETSID), stdin, stdout and stderr on /dev/null;
/// 0 and *pid, or an errno value.
int pc_spawn_detached(const char *path, char *const argv[], char *const envp[], int *pid);

#endif
