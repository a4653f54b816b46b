/* LD_PRELOAD shim for the crash test (tests/crash/crashtest.py): records what each successful
 * fsync()/fdatasync() made durable, so that after a SIGKILL the harness can cut every file back
 * to its last synced size and simulate a power loss without kernel modules.
 *
 * For a regular file, the size and inode are read *before* the real sync (bytes appended while
 * the sync runs may or may not be durable: the conservative choice) and, on success, the line
 * "<inode> <size> <path>\n" is appended to $SYNCSHIM_LOG. The inode survives rename(), so the
 * temp-file-then-rename patterns (manifest, AOF base, dump.rdb) are covered. Limits: unsynced
 * directory operations (create, rename, unlink) are not reverted. Not thread-safe counting
 * for SYNCSHIM_FAIL_FROM (approximate under concurrent syncs; exact with appendfsync always). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void record(int fd, const struct stat* st) {
  const char* log = getenv("SYNCSHIM_LOG");
  if (!log) return;
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n < 0) n = 0;
  path[n] = '\0';
  char line[4300];
  int len = snprintf(line, sizeof line, "%llu %lld %s\n", (unsigned long long)st->st_ino,
                     (long long)st->st_size, path);
  int lfd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (lfd < 0) return;
  ssize_t w = write(lfd, line, (size_t)len);
  (void)w;
  close(lfd);
}

/* $SYNCSHIM_FAIL_FROM=N: the N-th and later syncs of regular files fail with EIO without
 * syncing (an fsync failure as libfiu injects it), so the harness can check that listd exits
 * without acknowledging. */
static long sync_calls = 0;

static int wrap(const char* name, int fd) {
  int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, name);
  struct stat st;
  int regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  const char* fail_from = getenv("SYNCSHIM_FAIL_FROM");
  if (regular && fail_from && ++sync_calls >= atol(fail_from)) {
    errno = EIO;
    return -1;
  }
  int rc = real(fd);
  if (rc == 0 && regular) record(fd, &st);
  return rc;
}

int fsync(int fd) { return wrap("fsync", fd); }
int fdatasync(int fd) { return wrap("fdatasync", fd); }
