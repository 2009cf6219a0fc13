/* workload.c - the workload registry and parameter checks, shared by guest and harness */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

#include "record.h"
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
		if (p->kind == UNIT_STRING || p->kind == UNIT_FILE)
			*why = *out == 0 ? "must not be empty" : "too short";
		else
			*why = *out == 0 ? "must not be zero" : "below the minimum";
		return -1;
	}
	if (*out > p->max) {
		*why = p->kind == UNIT_STRING || p->kind == UNIT_FILE ? "too long" : "above the maximum";
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

uint64_t wl_scaled(uint64_t v, uint64_t permille, uint64_t align, uint64_t min)
{
	uint64_t r = permille >= 1000 ? v : v / 1000 * permille + v % 1000 * permille / 1000;

	if (align > 1)
		r -= r % align;
	return r < min ? min : r;
}

uint64_t wl_disk_usable(const struct wl_disk *disk)
{
	uint64_t meta, journal = 0;

	if (!strcmp(disk->fs, "none"))
		return disk->size;
	/* inode tables and bitmaps (ext: 256 B per 16 KiB), indirect blocks */
	meta = disk->size / 32;
	if (strcmp(disk->fs, "ext2"))
		journal = disk->size / 64 < (128ULL << 20) ? disk->size / 64 : 128ULL << 20;
	if (!strcmp(disk->fs, "xfs"))
		journal = disk->size / 64 < (64ULL << 20) ? disk->size / 64 : 64ULL << 20;
	return disk->size - meta - journal;
}

int wl_check_fits(const char *what, uint64_t bytes, const struct wl_disk *disk,
		  char *why, size_t len)
{
	uint64_t usable = wl_disk_usable(disk);

	if (bytes <= usable)
		return 0;
	snprintf(why, len, "%s of %llu bytes does not fit a %llu-byte %s disk (about %llu usable; "
		 "raise disk.size)", what, (unsigned long long)bytes,
		 (unsigned long long)disk->size, disk->fs, (unsigned long long)usable);
	return -1;
}

void wl_rand_init(struct wl_rand *r, uint64_t seed, uint64_t stream)
{
	r->s = seed ^ (stream * 0xd1342543de82ef95ULL);
	wl_rand_next(r);
}

uint64_t wl_rand_next(struct wl_rand *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t wl_rand_below(struct wl_rand *r, uint64_t n)
{
	uint64_t lim, x;

	if (n <= 1)
		return 0;
	lim = UINT64_MAX - UINT64_MAX % n;	/* reject the biased tail */
	do
		x = wl_rand_next(r);
	while (x >= lim);
	return x % n;
}

double wl_rand_unit(struct wl_rand *r)
{
	return (wl_rand_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank percentile of sorted @v */
static double pct(const double *v, size_t n, double p)
{
	size_t k = (size_t)(p / 100.0 * n + 0.999999);

	if (k < 1)
		k = 1;
	return v[(k > n ? n : k) - 1];
}

int wl_lat_report(const char *prefix, double *us, size_t n)
{
	static const struct { const char *name; double p; } pcts[] = {
		{ "p50", 50 }, { "p90", 90 }, { "p99", 99 },
	};
	uint64_t bucket[WL_HIST_MAX_LOG2 + 2] = { 0 };
	char m[80];
	double sum = 0;
	size_t i;
	int k;

	if (!n)
		return 0;
	qsort(us, n, sizeof(*us), cmp_double);
	for (i = 0; i < n; i++) {
		sum += us[i];
		for (k = 0; k <= WL_HIST_MAX_LOG2 && us[i] > (double)(1u << k); k++)
			;
		bucket[k]++;
	}
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		snprintf(m, sizeof(m), "%s_%s_us", prefix, pcts[i].name);
		if (rec_sample(m, "us", pct(us, n, pcts[i].p)) < 0)
			return -1;
	}
	snprintf(m, sizeof(m), "%s_max_us", prefix);
	rec_sample(m, "us", us[n - 1]);
	snprintf(m, sizeof(m), "%s_min_us", prefix);
	rec_sample(m, "us", us[0]);
	snprintf(m, sizeof(m), "%s_mean_us", prefix);
	rec_sample(m, "us", sum / n);
	for (k = 0; k <= WL_HIST_MAX_LOG2; k++) {
		snprintf(m, sizeof(m), "%s_hist_le_%uus", prefix, 1u << k);
		if (rec_sample(m, "ops", (double)bucket[k]) < 0)
			return -1;
	}
	snprintf(m, sizeof(m), "%s_hist_gt_%uus", prefix, 1u << WL_HIST_MAX_LOG2);
	return rec_sample(m, "ops", (double)bucket[WL_HIST_MAX_LOG2 + 1]);
}

int wl_remount(const struct wl_ctx *ctx)
{
	if (umount(ctx->mnt) < 0)
		return rec_error("umount", errno, "umount %s: %s", ctx->mnt, strerror(errno));
	if (mount(ctx->dev, ctx->mnt, ctx->fs, 0, ctx->mount_opts) < 0)
		return rec_error("mount", errno, "mount -t %s -o '%s' %s %s: %s", ctx->fs,
				 ctx->mount_opts, ctx->dev, ctx->mnt, strerror(errno));
	return 0;
}
