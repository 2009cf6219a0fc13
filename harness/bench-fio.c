/*
 * bench-fio.c - the check of a user's fio job file before any boot. kpair's
 * own scan refuses what would leave the scratch fs or the measurement
 * (absolute or '..' file names, directory=, exec_*, engines that are not
 * local file I/O, log files, include files, the host's environment), naming
 * file:line: option; then the host's build of the same static fio parses it
 * with --parse-only, so an unknown option or a bad value shows before boot.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "bench.h"
#include "spawn.h"
#include "util.h"

#define FIO_JOBFILE_MAX (1 << 20)
#define FIO_BUILD_TIMEOUT_MS (60 * 60 * 1000)

/* options refused whatever their value, and why */
static const struct {
	const char *key, *why;
} refused[] = {
	{ "directory", "kpair sets directory= to the scratch fs; give file names relative to it" },
	{ "exec_prerun", "runs a shell command in the guest, outside what fio measures" },
	{ "exec_postrun", "runs a shell command in the guest, outside what fio measures" },
	{ "include", "include files are not copied into the guest: put the jobs in one file" },
	{ "read_iolog", "the log file is not copied into the guest" },
	{ "write_iolog", "writes a log kpair does not read (it reads fio's JSON)" },
	{ "write_bw_log", "writes a log kpair does not read (it reads fio's JSON)" },
	{ "write_lat_log", "writes a log kpair does not read (it reads fio's JSON)" },
	{ "write_iops_log", "writes a log kpair does not read (it reads fio's JSON)" },
	{ "write_hist_log", "writes a log kpair does not read (it reads fio's JSON)" },
	{ "replay_redirect", "sends the I/O to another device than the scratch disk" },
	{ "unified_rw_reporting", "kpair reads fio's read, write and trim figures apart" },
	{ "cgroup", "the guest has no cgroup fs mounted" },
	{ NULL, NULL },
};

/* options whose value is one or more ':'-separated paths that must stay on the scratch fs */
static const char *const path_keys[] = { "filename", "filename_format", "opendir", NULL };

/* the local file I/O engines of kpair's static fio (no libaio: not built in) */
static const char *const engines[] = {
	"sync", "psync", "vsync", "pvsync", "pvsync2", "io_uring", "posixaio", "mmap", "splice",
	"null", "falloc", "ftruncate", "filecreate", "filestat", "filedelete", "dircreate",
	"dirstat", "dirdelete", "cpuio", "e4defrag", NULL,
};

static int in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return 1;
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* one path of a path option: relative, and no '..' component */
static const char *bad_path(const char *p, size_t n)
{
	size_t i;

	if (!n)
		return NULL;
	if (p[0] == '/')
		return "an absolute path leaves the scratch fs: give a name relative to it";
	if (n == 1 && p[0] == '-')
		return "stdin or stdout: fio's output is kpair's channel";
	for (i = 0; i + 1 < n; i++)
		if (p[i] == '.' && p[i + 1] == '.' && (i == 0 || p[i - 1] == '/') &&
		    (i + 2 == n || p[i + 2] == '/'))
			return "a '..' component leaves the scratch fs";
	return NULL;
}

/* kpair's own scan of one "key=value" (or "key") line: 0, or -1 with the error printed */
static int scan_option(const char *file, unsigned line, char *key, char *val)
{
	const char *why = NULL, *p, *q;
	int i;

	for (p = key; *p; p++)
		*(char *)p = (char)tolower((unsigned char)*p);
	for (i = 0; refused[i].key; i++)
		if (!strcmp(key, refused[i].key))
			return error("%s:%u: %s: %s", file, line, key, refused[i].why);
	if (val && strstr(val, "${"))
		return error("%s:%u: %s: '%s': environment variables are the guest's, not yours: "
			     "write the value", file, line, key, val);
	if (!strcmp(key, "ioengine") && val && !in_list(engines, val))
		return error("%s:%u: ioengine: '%s': not a local file engine of kpair's static fio "
			     "(sync, psync, pvsync2, io_uring, posixaio, mmap, ...; no libaio)",
			     file, line, val);
	if (!val || !in_list(path_keys, key))
		return 0;
	/* fio's list separator is ':' ('\:' is a literal colon) */
	for (p = val; !why; p = q + 1) {
		for (q = p; *q && !(*q == ':' && (q == val || q[-1] != '\\')); q++)
			;
		why = bad_path(p, q - p);
		if (!*q)
			break;
	}
	if (why)
		return error("%s:%u: %s: '%s': %s", file, line, key, val, why);
	return 0;
}

/* kpair's scan of the whole file: every bad line is reported; -1 if any */
static int scan_jobfile(const char *path, char *text)
{
	char *line, *save = NULL;
	unsigned n = 0;
	int errors = 0, sections = 0;

	for (line = text; line; line = save) {
		char *eq, *s;

		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		n++;
		s = trim(line);
		if (!*s || *s == ';' || *s == '#')
			continue;
		if (*s == '[') {
			sections++;
			continue;
		}
		if (!strncmp(s, "include", 7) && isspace((unsigned char)s[7])) {
			s[7] = '\0';	/* fio's "include FILE" directive */
			errors += scan_option(path, n, s, NULL) < 0;
			continue;
		}
		eq = strchr(s, '=');
		if (eq)
			*eq = '\0';
		errors += scan_option(path, n, trim(s), eq ? trim(eq + 1) : NULL) < 0;
	}
	if (!errors && !sections)
		return error("%s: no job section ([name]): not a fio job file", path);
	return errors ? -1 : 0;
}

/* the static fio of the host's own architecture, built when missing (caller frees) */
static char *host_fio(void)
{
	struct spawn_result r = SPAWN_RESULT_INIT;
	struct utsname u;
	const char *arch = "amd64";
	char *bin, *script;
	int ret;

	uname(&u);
	if (!strcmp(u.machine, "aarch64"))
		arch = "arm64";
	else if (u.machine[0] == 'i' && strstr(u.machine, "86"))
		arch = "i386";
	bin = xasprintf("%s/images/tools/fio-%s/fio", kpair_root(), arch);
	if (path_exists(bin))
		return bin;
	script = xasprintf("%s/scripts/build-fio", kpair_root());
	info("fio-job: no fio for %s to check job files with; running %s %s", arch, script, arch);
	{
		const char *argv[] = { script, arch, NULL };

		ret = spawn_checked(argv, NULL, FIO_BUILD_TIMEOUT_MS, &r);
	}
	spawn_result_release(&r);
	free(script);
	if (ret < 0 || !path_exists(bin)) {
		error("cannot build fio for %s to check job files", arch);
		free(bin);
		return NULL;
	}
	return bin;
}

/* the line of @path whose text (trimmed) is @opt, or 0 */
static unsigned line_of(const char *text, const char *opt, size_t n)
{
	const char *l = text, *e;
	unsigned line = 1;

	for (; *l; line++) {
		e = strchrnul(l, '\n');
		while (l < e && isspace((unsigned char)*l))
			l++;
		if ((size_t)(e - l) >= n && !strncmp(l, opt, n))
			return line;
		if (!*e)
			break;
		l = e + 1;
	}
	return 0;
}

/* fio's complaint, one line: its stderr's lines joined, else its stdout's first */
static void fio_complaint(const struct spawn_result *r, const char *text, const char *path,
			  char *at, size_t atlen, struct text *t)
{
	const char *src = r->err[0] ? r->err : (r->out ? r->out : ""), *s, *opt = NULL;
	size_t optlen = 0;
	unsigned line = 0;

	for (s = src; *s; s++) {
		if (*s == '\n') {
			while (s[1] == '\n')
				s++;
			if (s[1])
				text_add(t, " / ");
		} else {
			text_add(t, "%c", (unsigned char)*s < ' ' ? '?' : *s);
		}
	}
	/* "Bad option <key=value>" and "failed parsing key=value": find that line */
	if ((s = strstr(src, "Bad option <"))) {
		opt = s + 12;
		optlen = strcspn(opt, ">\n");
	} else if ((s = strstr(src, "failed parsing "))) {
		opt = s + 15;
		optlen = strcspn(opt, "\n");
	}
	if (opt && optlen)
		line = line_of(text, opt, optlen);
	if (line)
		snprintf(at, atlen, "%s:%u", path, line);
	else
		snprintf(at, atlen, "%s", path);
}

int fio_jobfile_check(const char *path)
{
	struct spawn_result r = SPAWN_RESULT_INIT;
	struct text msg = { NULL, 0 };
	char *text = NULL, *copy, *fio, at[PATH_MAX + 16];
	size_t len = 0, bad;
	int ret = -1;

	if (read_file(path, &text, &len) < 0)
		return -1;
	if (len > FIO_JOBFILE_MAX || memchr(text, '\0', len) || utf8_check(text, len, &bad) < 0) {
		error("%s: not a fio job file (binary, or more than %d bytes)", path,
		      FIO_JOBFILE_MAX);
		goto out_free_text;
	}
	copy = xstrdup(text);
	ret = scan_jobfile(path, copy);
	free(copy);
	if (ret < 0)
		goto out_free_text;
	ret = -1;
	fio = host_fio();
	if (!fio)
		goto out_free_text;
	{
		const char *argv[] = { fio, "--parse-only", path, NULL };

		if (spawn_run(argv, 60000, &r) < 0) {
			error("%s: fio --parse-only did not finish", path);
			goto out_free_fio;
		}
	}
	if (r.exit_code) {
		fio_complaint(&r, text, path, at, sizeof(at), &msg);
		error("%s: fio --parse-only: %s", at, msg.s ? msg.s : "failed");
		goto out_free_fio;
	}
	ret = 0;
out_free_fio:
	free(msg.s);
	spawn_result_release(&r);
	free(fio);
out_free_text:
	free(text);
	return ret;
}
