// Runs listd (LISTD_BINARY, with this program's arguments) the way a container's default
// seccomp profile does: io_uring_setup, io_uring_enter and io_uring_register fail with EPERM
// (Docker's and most Kubernetes runtimes' default). io_layer_test.cpp checks that io-backend
// auto then falls back to epoll and io-backend io_uring refuses to start, with no seam in listd.
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define REFUSE(nr)                                     \
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))

int main(int argc, char** argv) {
  (void)argc;
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      REFUSE(__NR_io_uring_setup),
      REFUSE(__NR_io_uring_enter),
      REFUSE(__NR_io_uring_register),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {(unsigned short)(sizeof filter / sizeof filter[0]), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
    perror("seccomp");
    return 126;
  }
  argv[0] = (char*)LISTD_BINARY;
  execv(LISTD_BINARY, argv);
  perror("execv");
  return 127;
}
