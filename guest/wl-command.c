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
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int command_run(struct wl_ctx *ctx)
{
	char *argv[CMD_MAX_ARGS + 2], *words, *save = NULL, *t, scratch[300], how[80], tail[400];
	char *envp[] = { "PATH=" WL_FILES_DIR ":/kpair/tools", "HOME=/tmp", "TMPDIR=/tmp",
			 scratch, NULL };
	const char *cwd = strcmp(ctx->fs, "none") && ctx->fs[0] ? ctx->mnt : "/tmp";
	struct child c;
	int n = 0, ret = -1;

	words = strdup(ctx->str[P_ARGV]);
	if (!words)
		return rec_error("command", ENOMEM, "out of memory");
	argv[n++] = (char *)ctx->str[P_PROGRAM];
	for (t = strtok_r(words, " \t", &save); t && n <= CMD_MAX_ARGS; t = strtok_r(NULL, " \t", &save))
		argv[n++] = t;
	argv[n] = NULL;
	snprintf(scratch, sizeof(scratch), "KPAIR_SCRATCH=%s", cwd);
	child_init(&c);
	if (child_run(&c, "command", argv, envp, cwd, CMD_OUT_MAX) < 0)
		goto out;
	if (!WIFEXITED(c.status) || WEXITSTATUS(c.status)) {
		rec_error("command", ECHILD, "%s %s: %s", argv[0], child_how(&c, how, sizeof(how)),
			  child_err_tail(&c, tail, sizeof(tail)));
		goto out;
	}
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

const struct workload wl_command = {
	.name = "command",
	.help = "your own static program with an argv (no shell); metrics from its "
		"'kpair-metric NAME VALUE UNIT [lower|higher]' lines",
	.params = command_params,
	.run = command_run,
};
