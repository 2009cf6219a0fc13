/* util.h - error reporting, paths, time and files: the helpers every stage uses */
#ifndef KPAIR_UTIL_H
#define KPAIR_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* print "kpair: <msg>" to stderr and return -1 */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* the text of the last error() (without "kpair: "), for result.json reasons; "" if none */
const char *error_last(void);
/* print "kpair: warning: <msg>" to stderr */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* progress line on stderr unless quiet */
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int util_quiet;

/* a growing text (s is NUL-terminated, owned; free(t.s) when done) */
struct text {
	char *s;
	size_t len;
};
/* append printf output; aborts on out-of-memory */
void text_add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* append @s with & < > " ' escaped, for HTML and XML text and attribute values */
void text_esc(struct text *t, const char *s);
/* " @arg" as one shell word: quoted in '' when it holds anything but plain characters */
void text_shell_word(struct text *t, const char *arg);

/* malloc'd printf; aborts on out-of-memory. Caller frees. */
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xstrdup(const char *s);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* a count for people: 1234567 as "1.23 M", 1500 as "1.5 k" */
void fmt_count(char *buf, size_t len, double v);

double mono_now(void);		/* CLOCK_MONOTONIC seconds */
/* sync, then drop the host's clean page cache, dentries and inodes (root) */
int host_cache_drop(void);
char *utc_stamp(void);		/* "2026-12-02T14:39:10Z", caller frees */

int mkdir_p(const char *path, unsigned mode);
int rm_rf(const char *path);
int path_exists(const char *path);
/* @path is a directory (following links) */
int dir_exists(const char *path);
/* whole file into a NUL-terminated malloc'd buffer (caller frees); -1 on error */
int read_file(const char *path, char **buf, size_t *len);
/* write @len bytes to @path via a temp file, fsync and rename */
int write_file_atomic(const char *path, const void *buf, size_t len);
int copy_file(const char *src, const char *dst);
/* @j (borrowed) as indented JSON, written atomically to @path */
int write_json_atomic(const char *path, json_t *j);
/* @o's string member @key, "" when it is missing or not a string */
const char *jget_str(json_t *o, const char *key);
/* @o's number member @key, NAN when it is missing or not a number */
double jget_num(json_t *o, const char *key);
/* a JSON number, or null for NaN and infinities (new reference) */
json_t *jreal(double v);

/*
 * Stamps: a value derived from a file (its digest, a binary's version),
 * kept in @stamp with the file's stat identity (device, inode, size, mtime,
 * ctime to the ns). stamp_get returns it (caller frees) only while the file
 * is unchanged, else NULL; stamp_put stores it, best effort and silently.
 */
char *stamp_get(const char *stamp, const char *file);
/* a file changed less than this many seconds ago gets no stamp (2; the unit tests set -1) */
extern int stamp_racy_s;
void stamp_put(const char *stamp, const char *file, const char *value);
/*
 * One-line caches, "<key> <value>": cache_get returns the value (caller
 * frees) when @path holds one for @key, else NULL; cache_put replaces the
 * line by a temporary file and rename, best effort, without messages.
 */
char *cache_get(const char *path, const char *key);
void cache_put(const char *path, const char *key, const char *value);
/* @name as execvp would find it in $PATH, or a copy of @name when it has a '/' (caller frees) */
char *path_lookup(const char *name);

/* the project root: $KPAIR_ROOT, else the directory above the kpair binary */
const char *kpair_root(void);
/* what makes a missing guest agent: the cross compilers first for the other targets */
#define AGENT_HINT "run make; the i386 and arm64 agents need the cross compilers first: " \
	"scripts/deps cross, then make"

/* a plain name (run ids, file names): 1-64 of [A-Za-z0-9._+-], not starting with '.' or '-' */
int name_ok(const char *s);
/*
 * 0 when @path (relative to @base, or to the current directory when @base is
 * NULL) stays inside the project directory: no '..' component, and where it
 * exists its real path is under kpair_root(); else -1 with a reason in @why.
 */
int path_in_root(const char *path, const char *base, char *why, size_t len);
/*
 * A new directory @dir/.tmp-@name-XXXXXX (mkdtemp: a name nobody can guess,
 * mode 0700), after removing any @dir/.tmp-@name-* a killed process left:
 * call it with @dir locked, and hold the lock until the directory is renamed
 * or removed. The caller frees the name; NULL on error.
 */
char *make_temp_dir(const char *dir, const char *name);
/* 0 when @n bytes at @s are valid UTF-8; else -1 and *bad is the offset of the first bad byte */
int utf8_check(const char *s, size_t n, size_t *bad);
void kpair_set_root(const char *argv0);

#endif
