/* LD_PRELOAD shim for the crash test (tests/crash/crashtest.py): records what each successful
 * fsync()/fdatasync() made durable, and every name operation in the data directory, so that
 * after a SIGKILL the harness can put the files back into a state a power loss could leave
 * (no kernel modules needed).
 *
 * $SYNCSHIM_LOG gets one tab-separated line per event, appended with one write() (the rewrite
 * child writes to it too), in the order the events happened:
 *   S <inode> <size> <path>   a regular file was synced: its first <size> bytes are durable. The
 *                             size is read *before* the real sync (bytes appended while the
 *                             sync runs may or may not be durable: the conservative choice).
 *                             Concurrent syncs (everysec's thread and the main thread) may log
 *                             out of order: the harness keeps the largest size per inode.
 *   T <inode> <size> <path>   the file was truncated to <size> (truncate, ftruncate, O_TRUNC):
 *                             only that much of what was synced is left.
 *   D <path>                  a directory was fsynced: every name operation in it before this
 *                             line is durable.
 *   C <inode> <path>          open(O_CREAT) created a file that did not exist.
 *   M <path>                  mkdir.
 *   U <path> <keep>           unlink; <keep> is a hard link to the removed file (so that the
 *                             harness can bring it back if the unlink was not durable).
 *   R <from> <to> <keep|->    rename; <keep> is a hard link to the file <to> replaced.
 * Only paths under $SYNCSHIM_ROOT are logged; hard links go to $SYNCSHIM_ROOT/shim-keep/.
 * The harness (crashtest.py `powerloss`) undoes name operations not followed by a fsync of
 * their directory, then cuts every file back to its last synced size.
 *
 * Knobs: $SYNCSHIM_FAIL_FROM=N: the N-th and later syncs of regular files fail with EIO without
 * syncing (an fsync failure as libfiu injects it). Not thread-safe counting (approximate under
 * concurrent syncs; exact with appendfsync always).
 * $SYNCSHIM_DROP_DIRSYNC=1: directory fsyncs run but are not logged, as if listd never made
 * them: the harness must then see loss (the canary that proves the journal works).
 * $SYNCSHIM_HOLD_CHILD=<path>: while <path> exists, a forked child (listd's rewrite child) stops
 * itself (SIGSTOP) at its first sync, with its temporary file written but not synced, so that
 * the harness can kill listd during a rewrite deliberately instead of by luck. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int in_child = 0;
static void mark_child(void) { in_child = 1; }
__attribute__((constructor)) static void shim_init(void) { pthread_atfork(NULL, NULL, mark_child); }

static void* real(const char* name) { return dlsym(RTLD_NEXT, name); }

/* The real open, for the shim's own files (never logged). */
static int raw_open(const char* path, int flags, mode_t mode) {
  int (*f)(const char*, int, ...) = (int (*)(const char*, int, ...))real("open");
  return f(path, flags, mode);
}

static void emit(const char* line, size_t len) {
  const char* log = getenv("SYNCSHIM_LOG");
  if (!log) return;
  int lfd = raw_open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (lfd < 0) return;
  ssize_t w = write(lfd, line, len);
  (void)w;
  close(lfd);
}

static void fd_path(int fd, char* out, size_t n) {
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t k = readlink(link, out, n - 1);
  if (k < 0) k = 0;
  out[k] = '\0';
}

/* `path` relative to `dirfd` as an absolute path (not normalised: the harness does that). */
static void abs_path(int dirfd, const char* path, char* out, size_t n) {
  if (path[0] == '/') {
    snprintf(out, n, "%s", path);
    return;
  }
  char base[PATH_MAX];
  if (dirfd == AT_FDCWD) {
    if (!getcwd(base, sizeof base)) base[0] = '\0';
  } else {
    fd_path(dirfd, base, sizeof base);
  }
  snprintf(out, n, "%s/%s", base, path);
}

/* Is `p` under $SYNCSHIM_ROOT (and not one of the shim's own files)? */
static int watched(const char* p) {
  const char* root = getenv("SYNCSHIM_ROOT");
  const char* log = getenv("SYNCSHIM_LOG");
  if (!root || !log) return 0;
  size_t n = strlen(root);
  if (strncmp(p, root, n) != 0 || (p[n] != '/' && p[n] != '\0')) return 0;
  if (strcmp(p, log) == 0 || strstr(p + n, "/shim-keep")) return 0;
  return 1;
}

/* A hard link to `p` in $SYNCSHIM_ROOT/shim-keep, or "-" if `p` does not exist. */
static void keep_link(const char* p, char* out, size_t n) {
  static long counter = 0;
  struct stat st;
  snprintf(out, n, "-");
  if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode)) return;
  char dir[PATH_MAX - 64];  /* room for "/<pid>-<n>" in `out` */
  snprintf(dir, sizeof dir, "%s/shim-keep", getenv("SYNCSHIM_ROOT"));
  int (*mk)(const char*, mode_t) = (int (*)(const char*, mode_t))real("mkdir");
  mk(dir, 0755);
  snprintf(out, n, "%s/%d-%ld", dir, (int)getpid(), ++counter);
  if (link(p, out) != 0) snprintf(out, n, "-");
}

static void log_truncate(int fd, const char* p) {
  struct stat st;
  char line[PATH_MAX + 64];
  if (fstat(fd, &st) != 0) return;
  int len = snprintf(line, sizeof line, "T\t%llu\t%lld\t%s\n", (unsigned long long)st.st_ino,
                     (long long)st.st_size, p);
  emit(line, (size_t)len);
}

static int open_common(const char* fname, int dirfd, const char* path, int flags, mode_t mode) {
  char p[PATH_MAX];
  int fresh = 0, truncated = 0;
  if (flags & (O_CREAT | O_TRUNC)) {
    abs_path(dirfd, path, p, sizeof p);
    struct stat st;
    const int exists = lstat(p, &st) == 0;
    fresh = (flags & O_CREAT) && watched(p) && !exists;
    truncated = (flags & O_TRUNC) && watched(p) && exists;
  }
  int fd;
  if (strcmp(fname, "open") == 0 || strcmp(fname, "open64") == 0) {
    int (*f)(const char*, int, ...) = (int (*)(const char*, int, ...))real(fname);
    fd = f(path, flags, mode);
  } else {
    int (*f)(int, const char*, int, ...) = (int (*)(int, const char*, int, ...))real(fname);
    fd = f(dirfd, path, flags, mode);
  }
  if (fd >= 0 && fresh) {
    struct stat st;
    char line[PATH_MAX + 64];
    if (fstat(fd, &st) == 0) {
      int len = snprintf(line, sizeof line, "C\t%llu\t%s\n", (unsigned long long)st.st_ino, p);
      emit(line, (size_t)len);
    }
  }
  if (fd >= 0 && truncated) log_truncate(fd, p);
  return fd;
}

int truncate(const char* path, off_t length) {
  int (*f)(const char*, off_t) = (int (*)(const char*, off_t))real("truncate");
  int rc = f(path, length);
  char p[PATH_MAX];
  abs_path(AT_FDCWD, path, p, sizeof p);
  if (rc == 0 && watched(p)) {
    int fd = raw_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd >= 0) {
      log_truncate(fd, p);
      close(fd);
    }
  }
  return rc;
}

int ftruncate(int fd, off_t length) {
  int (*f)(int, off_t) = (int (*)(int, off_t))real("ftruncate");
  int rc = f(fd, length);
  char p[PATH_MAX];
  fd_path(fd, p, sizeof p);
  if (rc == 0 && watched(p)) log_truncate(fd, p);
  return rc;
}

#define MODE_ARG(flags, mode)                  \
  mode_t mode = 0;                             \
  if ((flags) & (O_CREAT | O_TMPFILE)) {       \
    va_list ap;                                \
    va_start(ap, flags);                       \
    mode = (mode_t)va_arg(ap, int);            \
    va_end(ap);                                \
  }

int open(const char* path, int flags, ...) {
  MODE_ARG(flags, mode);
  return open_common("open", AT_FDCWD, path, flags, mode);
}
int open64(const char* path, int flags, ...) {
  MODE_ARG(flags, mode);
  return open_common("open64", AT_FDCWD, path, flags, mode);
}
int openat(int dirfd, const char* path, int flags, ...) {
  MODE_ARG(flags, mode);
  return open_common("openat", dirfd, path, flags, mode);
}
int openat64(int dirfd, const char* path, int flags, ...) {
  MODE_ARG(flags, mode);
  return open_common("openat64", dirfd, path, flags, mode);
}

int mkdir(const char* path, mode_t mode) {
  int (*f)(const char*, mode_t) = (int (*)(const char*, mode_t))real("mkdir");
  int rc = f(path, mode);
  char p[PATH_MAX], line[PATH_MAX + 8];
  abs_path(AT_FDCWD, path, p, sizeof p);
  if (rc == 0 && watched(p)) emit(line, (size_t)snprintf(line, sizeof line, "M\t%s\n", p));
  return rc;
}

static int unlink_common(int dirfd, const char* path, int flags) {
  char p[PATH_MAX], keep[PATH_MAX], line[2 * PATH_MAX + 8];
  abs_path(dirfd, path, p, sizeof p);
  int w = watched(p) && !(flags & AT_REMOVEDIR);
  if (w) keep_link(p, keep, sizeof keep);
  int (*f)(int, const char*, int) = (int (*)(int, const char*, int))real("unlinkat");
  int rc = f(dirfd, path, flags);
  if (w && rc == 0) emit(line, (size_t)snprintf(line, sizeof line, "U\t%s\t%s\n", p, keep));
  if (w && rc != 0 && strcmp(keep, "-") != 0) {
    int saved = errno;
    unlink_common(AT_FDCWD, keep, 0);  /* not watched: a plain unlink */
    errno = saved;
  }
  return rc;
}

int unlink(const char* path) { return unlink_common(AT_FDCWD, path, 0); }
int unlinkat(int dirfd, const char* path, int flags) { return unlink_common(dirfd, path, flags); }

static int rename_common(int olddirfd, const char* from, int newdirfd, const char* to,
                         unsigned flags, int use2) {
  char a[PATH_MAX], b[PATH_MAX], keep[PATH_MAX], line[3 * PATH_MAX + 8];
  abs_path(olddirfd, from, a, sizeof a);
  abs_path(newdirfd, to, b, sizeof b);
  int w = watched(a) || watched(b);
  if (w) keep_link(b, keep, sizeof keep);
  int rc;
  if (use2) {
    int (*f)(int, const char*, int, const char*, unsigned) =
        (int (*)(int, const char*, int, const char*, unsigned))real("renameat2");
    rc = f(olddirfd, from, newdirfd, to, flags);
  } else {
    int (*f)(int, const char*, int, const char*) =
        (int (*)(int, const char*, int, const char*))real("renameat");
    rc = f(olddirfd, from, newdirfd, to);
  }
  if (w && rc == 0) emit(line, (size_t)snprintf(line, sizeof line, "R\t%s\t%s\t%s\n", a, b, keep));
  if (w && rc != 0 && strcmp(keep, "-") != 0) {
    int saved = errno;
    unlink_common(AT_FDCWD, keep, 0);
    errno = saved;
  }
  return rc;
}

int rename(const char* from, const char* to) {
  return rename_common(AT_FDCWD, from, AT_FDCWD, to, 0, 0);
}
int renameat(int olddirfd, const char* from, int newdirfd, const char* to) {
  return rename_common(olddirfd, from, newdirfd, to, 0, 0);
}
int renameat2(int olddirfd, const char* from, int newdirfd, const char* to, unsigned flags) {
  return rename_common(olddirfd, from, newdirfd, to, flags, 1);
}

static long sync_calls = 0;

static int wrap(const char* name, int fd) {
  int (*f)(int) = (int (*)(int))real(name);
  struct stat st;
  int ok_stat = fstat(fd, &st) == 0;
  int regular = ok_stat && S_ISREG(st.st_mode);
  int dir = ok_stat && S_ISDIR(st.st_mode);
  const char* fail_from = getenv("SYNCSHIM_FAIL_FROM");
  if (regular && fail_from && ++sync_calls >= atol(fail_from)) {
    errno = EIO;
    return -1;
  }
  const char* hold = getenv("SYNCSHIM_HOLD_CHILD");
  if (regular && in_child && hold && access(hold, F_OK) == 0) raise(SIGSTOP);
  int rc = f(fd);
  if (rc != 0 || !(regular || dir)) return rc;
  char path[PATH_MAX], line[PATH_MAX + 64];
  fd_path(fd, path, sizeof path);
  if (!watched(path)) return rc;
  int len;
  if (regular) {
    len = snprintf(line, sizeof line, "S\t%llu\t%lld\t%s\n", (unsigned long long)st.st_ino,
                   (long long)st.st_size, path);
  } else {
    const char* drop = getenv("SYNCSHIM_DROP_DIRSYNC");
    if (drop && strcmp(drop, "1") == 0) return rc;
    len = snprintf(line, sizeof line, "D\t%s\n", path);
  }
  emit(line, (size_t)len);
  return rc;
}

int fsync(int fd) { return wrap("fsync", fd); }
int fdatasync(int fd) { return wrap("fdatasync", fd); }
