/*
 * wl-stressng.c - stress-ng: the host's stress-ng (Debian's package, in the
 * host's / shared read-only as host-command does: x86_64 only) runs each
 * stressor of `stressors` in turn, `instances` of it, for `ops` bogo
 * operations (0: no limit) within `timeout`, in the scratch fs, with
 * --metrics --yaml. Each stressor's YAML metrics become samples:
 *
 *   <stressor>.bogo_ops_s      ops/s  bogo ops a second of wall time (higher is better)
 *   <stressor>.bogo_ops_s_cpu  ops/s  bogo ops a second of usr+sys time (higher)
 *   <stressor>.bogo_ops        ops    bogo ops done
 *   <stressor>.wall_s, .usr_s, .sys_s  s   (lower)
 *
 * stress-ng's YAML is read as the subset it writes (stress-ng 0.15: a
 * "metrics:" list of "- stressor: NAME" entries with "key: number" lines);
 * anything else there is an error naming the line. A non-zero exit is an
 * error record with the tail of its stderr.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "record.h"
#include "workload.h"

enum { P_STRESSORS, P_INSTANCES, P_OPS, P_TIMEOUT };

static const struct wl_param stressng_params[] = {
	[P_STRESSORS] = { "stressors", UNIT_STRING, "", 0, 256,
			  "stressors run one after another (stress-ng --stressors lists them): pipe switch" },
	[P_INSTANCES] = { "instances", UNIT_COUNT, "1", 1, 64, "instances of each stressor" },
	[P_OPS] = { "ops", UNIT_COUNT, "0", 0, 1000000000ULL,
		    "bogo operations of each stressor (--<stressor>-ops; 0: until the timeout)" },
	[P_TIMEOUT] = { "timeout", UNIT_DURATION, "10s", 1000, 3600000,
			"time limit of each stressor (--timeout)" },
	{ NULL },
};

#define STRESSNG_BIN "/usr/bin/stress-ng"
#define STRESSNG_YAML "/tmp/kpair-stress-ng.yaml"	/* in the chroot */
#define STRESSNG_MAX 16

/* the YAML keys read, the sample each becomes */
static const struct {
	const char *key, *metric, *unit;
} keys[] = {
	{ "bogo-ops", "bogo_ops", "ops" },
	{ "bogo-ops-per-second-real-time", "bogo_ops_s", "ops/s" },
	{ "bogo-ops-per-second-usr-sys-time", "bogo_ops_s_cpu", "ops/s" },
	{ "wall-clock-time", "wall_s", "s" },
	{ "user-time", "usr_s", "s" },
	{ "system-time", "sys_s", "s" },
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static char *trim(char *s)
{
	char *e;

	while (*s == ' ')
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int stressng_report(char *yaml, size_t len, const char *stressor)
{
	double v[NKEYS];
	int seen[NKEYS] = { 0 }, in_metrics = 0, found = 0;
	char *line = yaml, *nl, *s, *colon, *end, m[96];
	unsigned n = 0;
	size_t k;

	for (; line < yaml + len; line = nl + 1) {
		nl = memchr(line, '\n', yaml + len - line);
		if (!nl)
			nl = yaml + len;
		*nl = '\0';
		n++;
		if (!in_metrics) {
			in_metrics = !strcmp(trim(line), "metrics:");
			continue;
		}
		if (*line != ' ')	/* the end of the metrics list: "...", or another section */
			break;
		s = trim(line);
		if (!strncmp(s, "- stressor:", 11)) {
			if (found++)
				return rec_error("stress-ng", EINVAL, "YAML line %u: a second stressor "
						 "'%s' (kpair runs one at a time)", n, trim(s + 11));
			if (strcmp(trim(s + 11), stressor))
				return rec_error("stress-ng", EINVAL, "YAML line %u: stressor '%s', "
						 "expected '%s'", n, trim(s + 11), stressor);
			continue;
		}
		colon = strchr(s, ':');
		if (!found || !colon)
			return rec_error("stress-ng", EINVAL, "YAML line %u: '%.80s': not a "
					 "'key: number' of a stressor", n, s);
		*colon = '\0';
		for (k = 0; k < NKEYS; k++) {
			if (strcmp(s, keys[k].key))
				continue;
			errno = 0;
			v[k] = strtod(trim(colon + 1), &end);
			if (end == trim(colon + 1) || *end || errno)
				return rec_error("stress-ng", EINVAL, "YAML line %u: %s: '%.40s' is not "
						 "a number", n, s, trim(colon + 1));
			seen[k] = 1;
		}
	}
	if (!found)
		return rec_error("stress-ng", EINVAL, "stress-ng's YAML has no metrics for %s",
				 stressor);
	for (k = 0; k < NKEYS; k++)
		if (!seen[k])
			return rec_error("stress-ng", EINVAL, "stress-ng's YAML has no %s for %s",
					 keys[k].key, stressor);
	for (k = 0; k < NKEYS; k++) {
		snprintf(m, sizeof(m), "%s.%s", stressor, keys[k].metric);
		if (rec_sample(m, keys[k].unit, v[k]) < 0)
			return -1;
	}
	return 0;
}

/* one stress-ng run of @stressor, its YAML read back */
static int stressng_one(struct wl_ctx *ctx, const char *stressor)
{
	char opt[80], inst[24], ops_opt[96], ops[24], timeout[32], how[80], tail[400], *yaml = NULL;
	char *argv[16], path[300];
	char *const envp[] = { "PATH=/usr/bin:/bin", "HOME=/tmp", "TMPDIR=/tmp", "LC_ALL=C", NULL };
	const char *cwd = ctx->fs[0] && strcmp(ctx->fs, "none") ? "/mnt" : "/tmp";
	struct child c;
	int n = 0, fd, ret = -1;
	ssize_t k;
	size_t len = 0;

	snprintf(opt, sizeof(opt), "--%s", stressor);
	snprintf(inst, sizeof(inst), "%llu", (unsigned long long)ctx->val[P_INSTANCES]);
	snprintf(ops_opt, sizeof(ops_opt), "--%s-ops", stressor);
	snprintf(ops, sizeof(ops), "%llu", (unsigned long long)ctx->val[P_OPS]);
	/* stress-ng takes whole seconds (s, m, h; no ms) */
	snprintf(timeout, sizeof(timeout), "%llus", (unsigned long long)(ctx->val[P_TIMEOUT] + 999) / 1000);
	argv[n++] = STRESSNG_BIN;
	argv[n++] = opt;
	argv[n++] = inst;
	if (ctx->val[P_OPS]) {
		argv[n++] = ops_opt;
		argv[n++] = ops;
	}
	argv[n++] = "--timeout";
	argv[n++] = timeout;
	argv[n++] = "--metrics";
	argv[n++] = "--yaml";
	argv[n++] = STRESSNG_YAML;
	argv[n] = NULL;
	child_init(&c);
	c.root = WL_HOST_ROOT;
	if (child_run(&c, "stress-ng", argv, envp, cwd, 1 << 20) < 0)
		goto out;
	if (!WIFEXITED(c.status) || WEXITSTATUS(c.status)) {
		rec_error("stress-ng", ECHILD, "stress-ng --%s %s: %s", stressor,
			  child_how(&c, how, sizeof(how)), child_err_tail(&c, tail, sizeof(tail)));
		goto out;
	}
	snprintf(path, sizeof(path), "%s%s", WL_HOST_ROOT, STRESSNG_YAML);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	yaml = malloc(1 << 16);
	if (fd < 0 || !yaml) {
		rec_error("stress-ng", fd < 0 ? errno : ENOMEM, "cannot read %s: %s", path,
			  strerror(fd < 0 ? errno : ENOMEM));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	while (len < (1 << 16) - 1 && (k = read(fd, yaml + len, (1 << 16) - 1 - len)) > 0)
		len += k;
	close(fd);
	unlink(path);
	yaml[len] = '\0';
	ret = stressng_report(yaml, len, stressor);
out:
	free(yaml);
	child_release(&c);
	return ret;
}

static int stressng_run(struct wl_ctx *ctx)
{
	char *words = strdup(ctx->str[P_STRESSORS]), *save = NULL, *t;
	int ret = 0, n = 0;

	if (!words)
		return rec_error("stress-ng", ENOMEM, "out of memory");
	for (t = strtok_r(words, " \t", &save); t && !ret; t = strtok_r(NULL, " \t", &save)) {
		if (++n > STRESSNG_MAX) {
			ret = rec_error("stress-ng", E2BIG, "more than %d stressors", STRESSNG_MAX);
			break;
		}
		ret = stressng_one(ctx, t);
	}
	free(words);
	return ret;
}

/* stressors that need a kernel facility kpair's minimal configs could leave out */
static const struct wl_kneed stressng_kneeds[] = {
	{ "SYSVIPC", "System V shared memory", "stressors", "shm-sysv" },
	{ "SYSVIPC", "System V semaphores", "stressors", "sem-sysv" },
	{ "SYSVIPC", "System V message queues", "stressors", "msg" },
	{ "POSIX_MQUEUE", "POSIX message queues", "stressors", "mq" },
	{ "FUTEX", "futexes", "stressors", "futex" },
	{ "EPOLL", "epoll", "stressors", "epoll" },
	{ "EVENTFD", "eventfd", "stressors", "eventfd" },
	{ "TIMERFD", "timerfd", "stressors", "timerfd" },
	{ "SIGNALFD", "signalfd", "stressors", "signalfd" },
	{ "AIO", "POSIX asynchronous I/O", "stressors", "aio" },
	{ "IO_URING", "io_uring", "stressors", "io-uring" },
	{ "INOTIFY_USER", "inotify", "stressors", "inotify" },
	{ "FANOTIFY", "fanotify", "stressors", "fanotify" },
	{ "USERFAULTFD", "userfaultfd", "stressors", "userfaultfd" },
	{ "UNIX", "Unix domain sockets", "stressors", "sockpair" },
	{ NULL, NULL, NULL, NULL },
};

const struct workload wl_stress_ng = {
	.name = "stress-ng",
	.help = "x86_64: the host's stress-ng (Debian's package, the host's / read-only over "
		"virtio-9p), each stressor in turn; bogo ops/s per stressor",
	.params = stressng_params,
	.setup = wl_host_root_setup,
	.run = stressng_run,
	.teardown = wl_host_root_teardown,
	.host_root = 1,
	.kneeds = stressng_kneeds,
};
