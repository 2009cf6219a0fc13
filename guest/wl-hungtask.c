/*
 * wl-hungtask.c - TEST ONLY (fault injection): a real hung-task report on
 * the console from userspace, no module. It sets kernel.hung_task_timeout_secs
 * to 1, freezes the scratch fs (FIFREEZE), and forks a child that writes to
 * it: the child sleeps uninterruptibly in sb_start_write, and khungtaskd
 * prints "INFO: task ...:N blocked for more than 1 seconds." with a call
 * trace. The workload watches /dev/kmsg for that report (at most hold ms),
 * then thaws the fs; the child finishes and the run completes: status ok,
 * but the harness marks it (console warnings). No report in time is an
 * error record. Samples hung_report_s (block to report) and hung_child_s
 * (how long the write was blocked). Not a benchmark.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record.h"
#include "workload.h"

#define HUNG_TIMEOUT "/proc/sys/kernel/hung_task_timeout_secs"

enum { P_HOLD };

static const struct wl_param hungtask_params[] = {
	[P_HOLD] = { "hold", UNIT_DURATION, "30s", 100, 600000, "longest wait for the kernel's report" },
	{ NULL },
};

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -1;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		ret = -1;
	close(fd);
	return ret;
}

/* seconds until /dev/kmsg (read from @fd on) has a hung-task report, or -1 after @ms */
static double wait_report(int fd, uint64_t ms)
{
	double t0 = wl_now();
	char rec[2048];

	while ((wl_now() - t0) * 1000 < ms) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);

		if (n > 0) {
			rec[n] = '\0';
			if (strstr(rec, "blocked for more than"))
				return wl_now() - t0;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EPIPE)
			return -1;
		usleep(50000);
	}
	return -1;
}

/* the child: one write to the frozen fs, which blocks until the thaw */
static void __attribute__((noreturn)) blocked_writer(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);

	_exit(fd >= 0 && write(fd, "x", 1) == 1 ? 0 : 1);
}

static int hungtask_run(struct wl_ctx *ctx)
{
	char path[256];
	int mfd, kfd, st, ret = -1;
	double t0, t1, rep = -1;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/hung", ctx->mnt);
	if (write_text(HUNG_TIMEOUT, "1\n") < 0)
		return rec_error("hungtask", errno, "cannot set %s: %s (no CONFIG_DETECT_HUNG_TASK?)",
				 HUNG_TIMEOUT, strerror(errno));
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kfd < 0)
		return rec_error("hungtask", errno, "cannot open /dev/kmsg: %s", strerror(errno));
	lseek(kfd, 0, SEEK_END);	/* only what the kernel says from now on */
	mfd = open(ctx->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0) {
		close(kfd);
		return rec_error("hungtask", errno, "cannot open %s: %s", ctx->mnt, strerror(errno));
	}
	if (ioctl(mfd, FIFREEZE, 0) < 0) {
		rec_error("hungtask", errno, "FIFREEZE %s: %s", ctx->mnt, strerror(errno));
		goto out_close;
	}
	t0 = wl_now();
	pid = fork();
	if (pid == 0)
		blocked_writer(path);
	if (pid < 0)
		rec_error("hungtask", errno, "fork: %s", strerror(errno));
	else
		rep = wait_report(kfd, ctx->val[P_HOLD]);
	if (ioctl(mfd, FITHAW, 0) < 0) {
		rec_error("hungtask", errno, "FITHAW %s: %s", ctx->mnt, strerror(errno));
		goto out_close;	/* the child stays blocked: the harness times out */
	}
	if (pid < 0)
		goto out_close;
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		rec_error("hungtask", EIO, "the blocked writer failed");
		goto out_close;
	}
	t1 = wl_now();
	if (rep < 0) {
		rec_error("hungtask", ETIMEDOUT, "no hung-task report within %llu ms",
			  (unsigned long long)ctx->val[P_HOLD]);
		goto out_close;
	}
	rec_sample("hung_report_s", "s", rep);
	rec_sample("hung_child_s", "s", t1 - t0);
	ret = 0;
out_close:
	write_text(HUNG_TIMEOUT, "120\n");
	close(mfd);
	close(kfd);
	return ret;
}

static int hungtask_check(const uint64_t *val, const struct wl_disk *disk, char *why, size_t len)
{
	(void)val;
	if (!strcmp(disk->fs, "none")) {
		snprintf(why, len, "needs a filesystem to freeze (disk.fs = none)");
		return -1;
	}
	return 0;
}

const struct workload wl_hungtask = {
	.name = "hungtask",
	.help = "TEST ONLY: a write blocked on a frozen fs makes the kernel print a hung-task report",
	.params = hungtask_params,
	.check = hungtask_check,
	.run = hungtask_run,
};
