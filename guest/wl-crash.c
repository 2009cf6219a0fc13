/*
 * wl-crash.c - TEST ONLY (fault injection): the kernel panics in the middle
 * of the workload. It sends one sample (crash_armed), then writes 'c' to
 * /proc/sysrq-trigger: "Kernel panic - not syncing: sysrq triggered crash".
 * Writes to sysrq-trigger work whatever kernel.sysrq masks (that mask is for
 * the keyboard), so any kernel with CONFIG_MAGIC_SYSRQ crashes; one without
 * reports an error record instead (workload-failed). Not a benchmark.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "workload.h"

static const struct wl_param crash_params[] = {
	{ NULL },
};

static int crash_run(struct wl_ctx *ctx)
{
	int fd;

	(void)ctx;
	rec_sample("crash_armed", "", 1);
	sync();
	fd = open("/proc/sysrq-trigger", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return rec_error("crash", errno, "cannot open /proc/sysrq-trigger: %s (no CONFIG_MAGIC_SYSRQ?)",
				 strerror(errno));
	if (write(fd, "c", 1) != 1)
		return rec_error("crash", errno, "sysrq c: %s", strerror(errno));
	close(fd);
	return rec_error("crash", EAGAIN, "sysrq c returned: the kernel did not crash");
}

const struct workload wl_crash = {
	.name = "crash",
	.help = "TEST ONLY: one sample, then sysrq c: a kernel panic during the workload",
	.params = crash_params,
	.run = crash_run,
};
