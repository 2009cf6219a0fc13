/* util.h - error reporting, paths, time and files: the helpers every stage uses */
#ifndef KPAIR_UTIL_H
#define KPAIR_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* print "kpair: <msg>" to stderr and return -1 */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* print "kpair: warning: <msg>" to stderr */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* progress line on stderr unless quiet */
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int util_quiet;

/* malloc'd printf; aborts on out-of-memory. Caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xstrdup(const char *s);
void *xcalloc(size_t n, size_t size);

double mono_now(void);		/* CLOCK_MONOTONIC seconds */
char *utc_stamp(void);		/* "2026-12-02T14:39:10Z", caller frees */

int mkdir_p(const char *path, unsigned mode);
int rm_rf(const char *path);
int path_exists(const char *path);
/* whole file into a NUL-terminated malloc'd buffer (caller frees); -1 on error */
int read_file(const char *path, char **buf, size_t *len);
/* write @len bytes to @path via a temp file, fsync and rename */
int write_file_atomic(const char *path, const void *buf, size_t len);
int copy_file(const char *src, const char *dst);
/* hex sha256 of a file into @hex (65 bytes), by spawning sha256sum */
int sha256_file(const char *path, char hex[65]);

/* the project root: $KPAIR_ROOT, else the directory above the kpair binary */
const char *kpair_root(void);
void kpair_set_root(const char *argv0);

#endif
