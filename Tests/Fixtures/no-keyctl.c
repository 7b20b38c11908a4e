// no-keyctl PROGRAM [ARGUMENT...]: runs PROGRAM where keyctl, add_key and request_key fail with
// EPERM, as they do in a container under Docker's default seccomp profile (issue 39). A seccomp
// filter (PR_SET_NO_NEW_PRIVS, then SECCOMP_SET_MODE_FILTER; inherited across fork and execve),
// then execvp. Compiled by the tests that use it (ContainerTests), never shipped.
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "no-keyctl knows x86_64 and aarch64"
#endif

// System call `nr` fails with EPERM; the next instruction is tried for any other.
#define REFUSE(nr)                                \
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: no-keyctl PROGRAM [ARGUMENT...]\n");
    return 2;
  }
  struct sock_filter filter[] = {
      // Another architecture's call (another ABI's numbers): allowed, untouched.
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      REFUSE(SYS_keyctl),
      REFUSE(SYS_add_key),
      REFUSE(SYS_request_key),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {.len = sizeof filter / sizeof filter[0], .filter = filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    fprintf(stderr, "no-keyctl: PR_SET_NO_NEW_PRIVS: %s\n", strerror(errno));
    return 125;
  }
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) {
    fprintf(stderr, "no-keyctl: seccomp: %s\n", strerror(errno));
    return 125;
  }
  execvp(argv[1], argv + 1);
  fprintf(stderr, "no-keyctl: %s: %s\n", argv[1], strerror(errno));
  return 127;
}
