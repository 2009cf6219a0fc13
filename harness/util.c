/* util.c - error reporting, paths, time and files: the helpers every stage uses */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

int util_quiet;
static char last_error[512];

int error(const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	fprintf(stderr, "kpair: %s\n", msg ? msg : "out of memory");
	snprintf(last_error, sizeof(last_error), "%s", msg ? msg : "out of memory");
	free(msg);
	return -1;
}

const char *error_last(void)
{
	return last_error;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	fputs("kpair: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void info(const char *fmt, ...)
{
	va_list ap;

	if (util_quiet)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	char *piece;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&piece, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	t->s = realloc(t->s, t->len + n + 1);
	if (!t->s)
		abort();
	memcpy(t->s + t->len, piece, n + 1);
	t->len += n;
	free(piece);
}

void text_esc(struct text *t, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': text_add(t, "&amp;"); break;
		case '<': text_add(t, "&lt;"); break;
		case '>': text_add(t, "&gt;"); break;
		case '"': text_add(t, "&quot;"); break;
		case '\'': text_add(t, "&apos;"); break;
		default: text_add(t, "%c", *s);
		}
	}
}

char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		abort();
	return d;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		abort();
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		abort();
	return p;
}

void fmt_count(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (a >= 1e9)
		snprintf(buf, len, "%.2f G", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%.2f M", v / 1e6);
	else if (a >= 1e3)
		snprintf(buf, len, "%.1f k", v / 1e3);
	else
		snprintf(buf, len, "%.0f", v);
}

double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

char *utc_stamp(void)
{
	char buf[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return xstrdup(buf);
}

int mkdir_p(const char *path, unsigned mode)
{
	char buf[PATH_MAX];
	char *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return error("path too long: '%s'", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return error("cannot create directory '%s': %s", buf, strerror(errno));
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return error("cannot create directory '%s': %s", buf, strerror(errno));
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

int rm_rf(const char *path)
{
	if (!path_exists(path))
		return 0;
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		return error("cannot remove '%s': %s", path, strerror(errno));
	return 0;
}

int path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

int dir_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int read_file(const char *path, char **buf, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *b;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error("cannot open '%s': %s", path, strerror(errno));
	b = malloc(cap);
	for (;;) {
		ssize_t k;

		if (!b) {
			close(fd);
			return error("out of memory reading '%s'", path);
		}
		if (n + 1 >= cap) {
			char *nb = realloc(b, cap * 2);

			if (!nb) {
				free(b);
				b = NULL;
				continue;
			}
			b = nb;
			cap *= 2;
		}
		k = read(fd, b + n, cap - n - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			free(b);
			close(fd);
			return error("cannot read '%s': %s", path, strerror(errno));
		}
		if (!k)
			break;
		n += k;
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	if (len)
		*len = n;
	return 0;
}

int write_file_atomic(const char *path, const void *buf, size_t len)
{
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	const char *p = buf;
	int fd, ret = -1;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		error("cannot create '%s': %s", tmp, strerror(errno));
		goto out_free;
	}
	while (len) {
		ssize_t k = write(fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			error("cannot write '%s': %s", tmp, strerror(errno));
			goto out_unlink;
		}
		p += k;
		len -= k;
	}
	if (fsync(fd) < 0) {
		error("cannot fsync '%s': %s", tmp, strerror(errno));
		goto out_unlink;
	}
	if (close(fd) < 0) {
		fd = -1;
		error("cannot write '%s': %s", tmp, strerror(errno));
		goto out_unlink;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		error("cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
		goto out_unlink;
	}
	ret = 0;
	goto out_free;
out_unlink:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
out_free:
	free(tmp);
	return ret;
}

int write_json_atomic(const char *path, json_t *j)
{
	char *text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
	int ret;

	if (!text)
		return error("cannot encode '%s'", path);
	ret = write_file_atomic(path, text, strlen(text));
	free(text);
	return ret;
}

int copy_file(const char *src, const char *dst)
{
	char *buf;
	size_t len;
	int ret;

	if (read_file(src, &buf, &len) < 0)
		return -1;
	ret = write_file_atomic(dst, buf, len);
	free(buf);
	return ret;
}

/*
 * A file's identity as stat sees it. Any write, truncate, rename over it or
 * chmod moves ctime, which no one can set back, so an equal key means the
 * same contents (git's index trusts the same fields). A file changed in the
 * last 2 s could change again within the same timestamp tick ("racily
 * clean", in git's words): @settled (when asked for) is 0 and its key is
 * not stored.
 */
int stamp_racy_s = 2;

static int stat_key(const char *file, char *key, size_t len, int *settled)
{
	struct timespec now;
	struct stat st;

	if (stat(file, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	snprintf(key, len, "%llu:%llu:%lld:%lld.%09ld:%lld.%09ld", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
		 st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	if (settled) {
		clock_gettime(CLOCK_REALTIME, &now);
		*settled = now.tv_sec - st.st_ctim.tv_sec > stamp_racy_s;
	}
	return 0;
}

char *cache_get(const char *path, const char *key)
{
	char line[512], *value = NULL;
	size_t n = strlen(key);
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return NULL;	/* nothing cached yet: a miss, not an error */
	if (fgets(line, sizeof(line), f) && !strncmp(line, key, n) && line[n] == ' ') {
		line[strcspn(line, "\n")] = '\0';
		value = xstrdup(line + n + 1);
	}
	fclose(f);
	return value;
}

void cache_put(const char *path, const char *key, const char *value)
{
	char *tmp, *text;
	int fd, ok;

	if (strchr(key, ' ') || strchr(key, '\n') || strchr(value, '\n'))
		return;
	tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	text = xasprintf("%s %s\n", key, value);
	/* no fsync: a lost cache costs one recomputation, a torn one does not parse */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	if (fd >= 0)
		ok = !close(fd) && ok;
	if (!ok || rename(tmp, path) < 0)
		unlink(tmp);
	free(text);
	free(tmp);
}

char *stamp_get(const char *stamp, const char *file)
{
	char key[128];

	return stat_key(file, key, sizeof(key), NULL) < 0 ? NULL : cache_get(stamp, key);
}

void stamp_put(const char *stamp, const char *file, const char *value)
{
	char key[128];
	int settled;

	if (stat_key(file, key, sizeof(key), &settled) == 0 && settled)
		cache_put(stamp, key, value);
}

char *path_lookup(const char *name)
{
	const char *p = getenv("PATH");
	char *dir, *save = NULL, *copy;

	if (strchr(name, '/') || !p)
		return xstrdup(name);
	copy = xstrdup(p);
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char *full = xasprintf("%s/%s", *dir ? dir : ".", name);

		if (!access(full, X_OK)) {
			free(copy);
			return full;
		}
		free(full);
	}
	free(copy);
	return xstrdup(name);
}

static char root_dir[PATH_MAX];

void kpair_set_root(const char *argv0)
{
	const char *env = getenv("KPAIR_ROOT");
	char buf[PATH_MAX];

	if (env && *env) {
		snprintf(root_dir, sizeof(root_dir), "%s", env);
		return;
	}
	/* harness/kpair lives one level below the project root */
	if (realpath("/proc/self/exe", buf) || (argv0 && realpath(argv0, buf))) {
		char *d = dirname(buf);

		snprintf(root_dir, sizeof(root_dir), "%s/..", d);
		if (realpath(root_dir, buf))
			snprintf(root_dir, sizeof(root_dir), "%s", buf);
		return;
	}
	snprintf(root_dir, sizeof(root_dir), ".");
}

const char *kpair_root(void)
{
	return root_dir[0] ? root_dir : ".";
}

int name_ok(const char *s)
{
	size_t n = strlen(s);

	return n && n <= 64 && s[0] != '.' && s[0] != '-' &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-") == n;
}

int path_in_root(const char *path, const char *base, char *why, size_t len)
{
	const char *root = kpair_root(), *p;
	char *full, real[PATH_MAX], rroot[PATH_MAX];
	size_t n;
	int ret = 0;

	for (p = path; (p = strstr(p, "..")); p += 2) {
		if ((p == path || p[-1] == '/') && (p[2] == '/' || !p[2])) {
			snprintf(why, len, "'%s': a '..' component leaves the project directory", path);
			return -1;
		}
	}
	full = path[0] == '/' || !base ? xstrdup(path) : xasprintf("%s/%s", base, path);
	if (!realpath(root, rroot))
		snprintf(rroot, sizeof(rroot), "%s", root);
	n = strlen(rroot);
	if (realpath(full, real)) {
		if (strncmp(real, rroot, n) || (real[n] != '/' && real[n]))
			ret = -1;	/* outside, through a symlink or an absolute path */
	} else if (path[0] == '/' && (strncmp(path, rroot, n) || path[n] != '/')) {
		ret = -1;
	}
	if (ret < 0)
		snprintf(why, len, "'%s' is outside the project directory %s", path, rroot);
	free(full);
	return ret;
}

int utf8_check(const char *s, size_t n, size_t *bad)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = s[i];
		size_t k, need = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 :
			     (c & 0xf8) == 0xf0 ? 3 : 9;
		unsigned cp = need == 1 ? c & 0x1f : need == 2 ? c & 0x0f : c & 0x07;

		if (need == 9 || i + need >= n + (need ? 0 : 1))
			goto bad;
		for (k = 1; k <= need; k++) {
			if (((unsigned char)s[i + k] & 0xc0) != 0x80)
				goto bad;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		/* overlong forms, surrogates and beyond U+10FFFF are not UTF-8 */
		if ((need == 1 && cp < 0x80) || (need == 2 && cp < 0x800) ||
		    (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
			goto bad;
		i += need + 1;
	}
	return 0;
bad:
	*bad = i;
	return -1;
}

/* remove @dir/.tmp-<name>-* left by a process that died (the caller holds @dir's lock) */
static void rm_stale_temps(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		if (!strncmp(de->d_name, prefix, strlen(prefix))) {
			char *p = xasprintf("%s/%s", dir, de->d_name);

			rm_rf(p);
			free(p);
		}
	}
	if (d)
		closedir(d);
}

char *make_temp_dir(const char *dir, const char *name)
{
	char *prefix = xasprintf(".tmp-%s-", name), *tmpl;

	rm_stale_temps(dir, prefix);
	tmpl = xasprintf("%s/%sXXXXXX", dir, prefix);
	free(prefix);
	if (!mkdtemp(tmpl)) {
		error("cannot create a temporary directory '%s': %s", tmpl, strerror(errno));
		free(tmpl);
		return NULL;
	}
	return tmpl;
}

int host_cache_drop(void)
{
	static const char path[] = "/proc/sys/vm/drop_caches";
	int fd, ret = 0;

	sync();
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return error("%s: %s (dropping the page cache needs root)", path, strerror(errno));
	if (write(fd, "3\n", 2) != 2)
		ret = error("%s: %s", path, strerror(errno));
	close(fd);
	return ret;
}

const char *jget_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

double jget_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

json_t *jreal(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

void text_shell_word(struct text *t, const char *arg)
{
	const char *p;

	if (*arg && strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			   "0123456789_./=:,+-@%") == strlen(arg)) {
		text_add(t, " %s", arg);
		return;
	}
	text_add(t, " '");
	for (p = arg; *p; p++)
		text_add(t, *p == '\'' ? "'\\''" : "%c", *p);
	text_add(t, "'");
}

