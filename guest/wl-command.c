/*
 * wl-command.c - command: the user's own static program in the guest. The
 * harness checked it before the boot (harness/bench-cmd.c: a static ELF
 * binary of the target's architecture, an argv without shell syntax) and put
 * it in the initramfs as /kpair/files/program. It runs once, with the argv
 * split on blanks (no shell, no quoting), in the scratch fs (or /tmp with
 * disk.fs = none), environment PATH=/kpair/files:/kpair/tools HOME=/tmp
 * TMPDIR=/tmp KPAIR_SCRATCH=<its directory>.
 *
 * Its metrics are the lines of its stdout of the form
 *
 *   kpair-metric NAME VALUE UNIT [lower|higher]
 *
 * NAME 1-48 of [A-Za-z0-9_.-] (not starting with "command."), VALUE a finite
 * number, UNIT 1-16 of [A-Za-z0-9_/%.-]; the last word says which way is
 * better where the unit does not (s, ms, us, ns: lower; B/s, KiB/s, MiB/s,
 * ops/s, iops: higher). A NAME printed again adds a value to the same metric.
 * Other lines are the program's own and are left alone. Besides them:
 * command.elapsed_s (fork to exit) and command.exit_status (0). A non-zero
 * exit or a signal is an error record with the tail of its stderr; a
 * kpair-metric line that does not parse is an error naming the line.
 *
 * host-command: the same for an installed program of the host (x86_64 only):
 * the host's / is shared read-only over virtio-9p (tag "hostroot", mounted at
 * /host with cache=loose), the guest's /proc, /sys and /dev, a tmpfs on /tmp
 * and the scratch fs on /mnt are mounted over it, and the program runs
 * chrooted there with PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin.
 * Besides kpair-metric lines, `match` and `metric` take one figure from
 * output that is not kpair's: the first number on the first stdout line
 * containing `match` is metric `metric` = "NAME UNIT [lower|higher]".
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "child.h"
#include "record.h"
#include "workload.h"

enum { P_PROGRAM, P_ARGV };

static const struct wl_param command_params[] = {
	[P_PROGRAM] = { "program", UNIT_FILE, "", 0, 4096,
			"your static binary, on the host (relative: to the job file's directory)" },
	[P_ARGV] = { "argv", UNIT_STRING, "", 0, WL_PARAM_TEXT_MAX,
		     "its arguments, split on blanks: no shell, no quoting" },
	{ NULL },
};

enum { H_PATH, H_ARGV, H_MATCH, H_METRIC };

static const struct wl_param host_params[] = {
	[H_PATH] = { "path", UNIT_STRING, "", 0, 4096,
		     "the host's program, an absolute path (/usr/bin/perf), run from the host's / "
		     "read-only" },
	[H_ARGV] = { "argv", UNIT_STRING, "", 0, WL_PARAM_TEXT_MAX,
		     "its arguments, split on blanks: no shell, no quoting" },
	[H_MATCH] = { "match", UNIT_STRING, "", 0, 128,
		      "the first stdout line with this text gives metric's value (its first number)" },
	[H_METRIC] = { "metric", UNIT_STRING, "", 0, 128,
		       "with match: NAME UNIT [lower|higher] of that number" },
	{ NULL },
};

#define HOST_DIR "/host"
#define CMD_OUT_MAX (16 << 20)
#define CMD_MAX_ARGS 64
#define CMD_METRIC_PREFIX "kpair-metric"

static int is_word(const char *s, size_t max, const char *extra)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return 0;
	return n >= 1 && n <= max;
}

/* one "kpair-metric NAME VALUE UNIT [lower|higher]" line, sent as a sample; -1 with *why */
static int metric_line(char *line, const char **why)
{
	char *w[6], *save = NULL, *end, *t;
	int n = 0;
	double v;

	for (t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n == 5) {
			*why = "more than NAME VALUE UNIT [lower|higher]";
			return -1;
		}
		w[n++] = t;
	}
	if (n < 4) {
		*why = "expected NAME VALUE UNIT [lower|higher]";
		return -1;
	}
	if (!is_word(w[1], 48, "_.-") || !strncmp(w[1], "command.", 8)) {
		*why = "NAME: 1-48 of [A-Za-z0-9_.-], not command.*";
		return -1;
	}
	errno = 0;
	v = strtod(w[2], &end);
	if (end == w[2] || *end || errno == ERANGE || v != v || v - v != 0) {
		*why = "VALUE: not a finite number";
		return -1;
	}
	if (!is_word(w[3], 16, "_/%.-")) {
		*why = "UNIT: 1-16 of [A-Za-z0-9_/%.-]";
		return -1;
	}
	if (n == 5 && strcmp(w[4], "lower") && strcmp(w[4], "higher")) {
		*why = "the last word is lower or higher";
		return -1;
	}
	if (rec_sample_better(w[1], w[3], v, n == 5 ? w[4] : NULL) < 0) {
		*why = "the sample could not be sent";
		return -1;
	}
	return 0;
}

int command_report(char *out, size_t len)
{
	char *line = out, *nl;
	unsigned n = 0;

	while (line < out + len) {
		const char *why;
		char copy[160];

		nl = memchr(line, '\n', out + len - line);
		if (nl)
			*nl = '\0';
		n++;
		if (!strncmp(line, CMD_METRIC_PREFIX, sizeof(CMD_METRIC_PREFIX) - 1) &&
		    (line[sizeof(CMD_METRIC_PREFIX) - 1] == ' ' ||
		     line[sizeof(CMD_METRIC_PREFIX) - 1] == '\t' || !line[sizeof(CMD_METRIC_PREFIX) - 1])) {
			size_t i;

			/* printable in the message whatever the program wrote */
			for (i = 0; line[i] && i + 1 < sizeof(copy); i++)
				copy[i] = (unsigned char)line[i] < ' ' || (unsigned char)line[i] > '~' ?
					  '?' : line[i];
			copy[i] = '\0';
			if (metric_line(line, &why) < 0)
				return rec_error("command", EINVAL, "stdout line %u: '%s': %s", n, copy,
						 why);
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	return 0;
}

/* the first number on the first line of @out containing @match, as metric @metric */
int command_extract(const char *out, size_t len, const char *match, const char *metric)
{
	const char *l = out, *e, *p;
	char buf[400], *end, *copy;
	const char *why;
	size_t n;
	double v;

	for (; l < out + len; l = e + 1) {
		e = memchr(l, '\n', out + len - l);
		if (!e)
			e = out + len;
		n = e - l;
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, l, n);
		buf[n] = '\0';
		if (!strstr(buf, match))
			continue;
		for (p = buf; *p; p++) {
			if (!isdigit((unsigned char)*p) &&
			    !((*p == '-' || *p == '.') && isdigit((unsigned char)p[1])))
				continue;
			v = strtod(p, &end);
			if (end == p)
				continue;
			n = strcspn(metric, " \t");
			copy = malloc(strlen(metric) + 64);
			if (!copy)
				return rec_error("command", ENOMEM, "out of memory");
			sprintf(copy, "kpair-metric %.*s %.17g%s", (int)n, metric, v, metric + n);
			if (metric_line(copy, &why) < 0) {
				free(copy);
				return rec_error("command", EINVAL, "metric '%s': %s", metric, why);
			}
			free(copy);
			return 0;
		}
		return rec_error("command", EINVAL, "stdout line '%.100s' has '%s' but no number",
				 buf, match);
	}
	return rec_error("command", EINVAL, "no stdout line has '%s' (match)", match);
}

/* run @prog with the words of @args in @cwd (chrooted to @root), its stdout as metrics */
static int run_program(const char *prog, const char *args, const char *cwd, const char *root,
		       const char *path_env, const char *match, const char *metric)
{
	char *argv[CMD_MAX_ARGS + 2], *words, *save = NULL, *t, scratch[300], how[80], tail[400];
	char *envp[] = { (char *)path_env, "HOME=/tmp", "TMPDIR=/tmp", "LC_ALL=C", scratch, NULL };
	struct child c;
	int n = 0, ret = -1;

	words = strdup(args);
	if (!words)
		return rec_error("command", ENOMEM, "out of memory");
	argv[n++] = (char *)prog;
	for (t = strtok_r(words, " \t", &save); t && n <= CMD_MAX_ARGS; t = strtok_r(NULL, " \t", &save))
		argv[n++] = t;
	argv[n] = NULL;
	snprintf(scratch, sizeof(scratch), "KPAIR_SCRATCH=%s", cwd);
	child_init(&c);
	c.root = root;
	if (child_run(&c, "command", argv, envp, cwd, CMD_OUT_MAX) < 0)
		goto out;
	if (!WIFEXITED(c.status) || WEXITSTATUS(c.status)) {
		rec_error("command", ECHILD, "%s %s: %s", argv[0], child_how(&c, how, sizeof(how)),
			  child_err_tail(&c, tail, sizeof(tail)));
		goto out;
	}
	if (match && *match && command_extract(c.out, c.len, match, metric) < 0)
		goto out;
	if (command_report(c.out, c.len) < 0)
		goto out;
	if (rec_sample("command.elapsed_s", "s", c.elapsed_s) < 0 ||
	    rec_sample("command.exit_status", "status", 0) < 0)
		goto out;
	ret = 0;
out:
	child_release(&c);
	free(words);
	return ret;
}

static int has_fs(const struct wl_ctx *ctx)
{
	return ctx->fs[0] && strcmp(ctx->fs, "none");
}

static int command_run(struct wl_ctx *ctx)
{
	return run_program(ctx->str[P_PROGRAM], ctx->str[P_ARGV], has_fs(ctx) ? ctx->mnt : "/tmp",
			   NULL, "PATH=" WL_FILES_DIR ":/kpair/tools", NULL, NULL);
}

/* what wl_host_root_setup mounts over the host's tree, undone in reverse */
static const char *const host_mounts[] = {
	HOST_DIR "/proc", HOST_DIR "/sys", HOST_DIR "/dev", HOST_DIR "/tmp", HOST_DIR "/mnt",
};
#define NHOST (sizeof(host_mounts) / sizeof(host_mounts[0]))

void wl_host_root_teardown(struct wl_ctx *ctx)
{
	size_t i;

	(void)ctx;
	for (i = NHOST; i > 0; i--)
		umount2(host_mounts[i - 1], MNT_DETACH);
	umount2(HOST_DIR, MNT_DETACH);
}

int wl_host_root_setup(struct wl_ctx *ctx)
{
	const char *src[NHOST] = { "/proc", "/sys", "/dev", NULL, has_fs(ctx) ? ctx->mnt : NULL };
	size_t i;

	mkdir(HOST_DIR, 0755);
	if (mount("hostroot", HOST_DIR, "9p", MS_RDONLY,
		  "trans=virtio,version=9p2000.L,cache=loose,msize=262144") < 0)
		return rec_error("host-root", errno, "mount -t 9p hostroot %s: %s (the kernel needs "
				 "CONFIG_9P_FS and CONFIG_NET_9P_VIRTIO)", HOST_DIR, strerror(errno));
	for (i = 0; i < NHOST; i++) {
		int r = src[i] ? mount(src[i], host_mounts[i], NULL, MS_BIND | MS_REC, NULL) :
			i == 3 ? mount("tmpfs", host_mounts[i], "tmpfs", 0, "mode=1777") : 0;

		if (r < 0) {
			rec_error("host-root", errno, "mount %s on %s: %s", src[i] ? src[i] : "tmpfs",
				  host_mounts[i], strerror(errno));
			wl_host_root_teardown(ctx);
			return -1;
		}
	}
	return 0;
}

static int host_run(struct wl_ctx *ctx)
{
	return run_program(ctx->str[H_PATH], ctx->str[H_ARGV], has_fs(ctx) ? "/mnt" : "/tmp",
			   HOST_DIR, "PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin",
			   ctx->str[H_MATCH], ctx->str[H_METRIC]);
}

const struct workload wl_host_command = {
	.name = "host-command",
	.help = "x86_64: an installed program of the host (perf bench, hackbench), run from the "
		"host's / read-only over virtio-9p; metrics as command's, or match/metric",
	.params = host_params,
	.setup = wl_host_root_setup,
	.run = host_run,
	.teardown = wl_host_root_teardown,
	.host_root = 1,
};

const struct workload wl_command = {
	.name = "command",
	.help = "your own static program with an argv (no shell); metrics from its "
		"'kpair-metric NAME VALUE UNIT [lower|higher]' lines",
	.params = command_params,
	.run = command_run,
};
