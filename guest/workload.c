/* workload.c - the workload registry and parameter checks, shared by guest and harness */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

const struct workload *const workloads[] = {
#define WORKLOAD(n) &wl_##n,
#include "workloads.def"
#undef WORKLOAD
	NULL,
};

const struct workload *workload_find(const char *name)
{
	const struct workload *const *w;

	for (w = workloads; *w; w++)
		if (!strcmp((*w)->name, name))
			return *w;
	return NULL;
}

int workload_param_index(const struct workload *wl, const char *name)
{
	int i;

	for (i = 0; wl->params[i].name; i++)
		if (!strcmp(wl->params[i].name, name))
			return i;
	return -1;
}

uint64_t wl_param(const struct wl_ctx *ctx, const struct workload *wl, const char *name)
{
	int i = workload_param_index(wl, name);

	if (i < 0) {
		fprintf(stderr, "BUG: workload '%s' has no parameter '%s'\n", wl->name, name);
		abort();
	}
	return ctx->val[i];
}

int wl_param_check(const struct wl_param *p, const char *value, uint64_t *out,
		   const char **why)
{
	if (unit_parse(p->kind, value, out, why) < 0)
		return -1;
	if (*out < p->min) {
		*why = "below the minimum";
		return -1;
	}
	if (*out > p->max) {
		*why = "above the maximum";
		return -1;
	}
	return 0;
}

double wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int wl_drop_caches(void)
{
	int fd, ret = 0;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0)
		return -1;
	if (write(fd, "3\n", 2) != 2)
		ret = -1;
	close(fd);
	return ret;
}

int wl_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t k = write(fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0) {
			errno = ENOSPC;
			return -1;
		}
		p += k;
		len -= k;
	}
	return 0;
}

int wl_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t k = read(fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0) {
			errno = EIO;	/* short file */
			return -1;
		}
		p += k;
		len -= k;
	}
	return 0;
}
