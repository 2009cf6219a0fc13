/*
 * wl-msync.c - msync-async, seed 001 (Miklos Szeredi / Anton Salikhmetov,
 * 2008): the latency of msync(MS_ASYNC) on a dirty MAP_SHARED file, and the
 * file times it leaves. The file_size file is written with write() and
 * fsynced, then mapped shared; each of `iterations` rounds dirties
 * dirty_pages pages (one store per page; 0 = every page), then times one
 * msync(MS_ASYNC) in microseconds, with stat() before dirtying, after
 * dirtying and after msync.
 * Samples per round: msync_us (the published figure), dirty_s, and the file
 * times as deltas in microseconds (epoch seconds do not survive a sample's
 * 9 significant digits): mtime_dirty_delta_us / ctime_dirty_delta_us (what
 * the page faults did), mtime_msync_delta_us / ctime_msync_delta_us (what
 * msync did), mtime_changed / ctime_changed (1 when the time after msync
 * differs from the time before dirtying). Once: file_bytes, dirty_pages.
 * scale shrinks file_size (and dirty_pages when given), not the rounds.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"
#include "workload.h"

enum { P_FILE_SIZE, P_DIRTY, P_ITER, P_SCALE };

static const struct wl_param msync_params[] = {
	[P_FILE_SIZE] = { "file_size", UNIT_SIZE, "512M", 4096, 64ULL << 30, "file mapped MAP_SHARED" },
	[P_DIRTY] = { "dirty_pages", UNIT_COUNT, "0", 0, 1ULL << 34, "pages dirtied before each msync (0: all)" },
	[P_ITER] = { "iterations", UNIT_COUNT, "3", 1, 100000, "timed msync(MS_ASYNC) calls (the post's runs)" },
	[P_SCALE] = WL_SCALE_PARAM,
	{ NULL },
};

static void msync_plan(const uint64_t *val, long page, uint64_t *size, uint64_t *dirty)
{
	*size = wl_scaled(val[P_FILE_SIZE], val[P_SCALE], page, page);
	*dirty = val[P_DIRTY] ? wl_scaled(val[P_DIRTY], val[P_SCALE], 1, 1) : *size / page;
	if (*dirty > *size / page)
		*dirty = *size / page;
}

static int msync_check(const uint64_t *val, const struct wl_disk *disk, char *why, size_t len)
{
	uint64_t size, dirty;

	msync_plan(val, disk->page_size, &size, &dirty);
	if (val[P_DIRTY] > val[P_FILE_SIZE] / disk->page_size) {
		snprintf(why, len, "dirty_pages %llu is more than the file's %llu pages",
			 (unsigned long long)val[P_DIRTY],
			 (unsigned long long)(val[P_FILE_SIZE] / disk->page_size));
		return -1;
	}
	if (!strcmp(disk->fs, "none")) {
		snprintf(why, len, "needs a filesystem (disk.fs = none)");
		return -1;
	}
	return wl_check_fits("file_size", size, disk, why, len);
}

static double ts_us(const struct timespec *a, const struct timespec *b)
{
	int64_t ns = (int64_t)(b->tv_sec - a->tv_sec) * 1000000000 + (b->tv_nsec - a->tv_nsec);

	return ns / 1e3;
}

static int make_file(const char *path, uint64_t size)
{
	size_t chunk = 1 << 20;
	char *buf = calloc(1, chunk);
	uint64_t off;
	int fd, ret = -1;

	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (!buf || fd < 0) {
		rec_error("msync", errno, "cannot create '%s': %s", path, strerror(errno));
		goto out;
	}
	for (off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;

		if (wl_write_full(fd, buf, n) < 0) {
			rec_error("msync", errno, "write at %llu: %s", (unsigned long long)off,
				  strerror(errno));
			goto out;
		}
	}
	if (fsync(fd) < 0) {
		rec_error("msync", errno, "fsync: %s", strerror(errno));
		goto out;
	}
	ret = fd;
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

static int msync_run(struct wl_ctx *ctx)
{
	long page = sysconf(_SC_PAGESIZE);
	struct stat s0, s1, s2;
	uint64_t size, dirty, i, it;
	char path[256], *map;
	int fd, ret = -1;

	msync_plan(ctx->val, page, &size, &dirty);
	snprintf(path, sizeof(path), "%s/mmapfile", ctx->mnt);
	fd = make_file(path, size);
	if (fd < 0)
		return -1;
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		rec_error("msync", errno, "mmap %llu bytes: %s", (unsigned long long)size,
			  strerror(errno));
		goto out_close;
	}
	rec_sample("file_bytes", "B", (double)size);
	for (it = 0; it < ctx->val[P_ITER]; it++) {
		double t0, dirty_s, msync_s;
		int r;

		if (fstat(fd, &s0) < 0)
			goto out_stat;
		t0 = wl_now();
		for (i = 0; i < dirty; i++)
			map[i * page] = (char)(it + 1);
		dirty_s = wl_now() - t0;
		if (!it)
			rec_sample("dirty_pages", "pages", (double)i);
		if (fstat(fd, &s1) < 0)
			goto out_stat;
		t0 = wl_now();
		r = msync(map, size, MS_ASYNC);
		msync_s = wl_now() - t0;
		if (r < 0) {
			rec_error("msync", errno, "msync(MS_ASYNC): %s", strerror(errno));
			goto out_unmap;
		}
		if (fstat(fd, &s2) < 0)
			goto out_stat;
		rec_sample("msync_us", "us", msync_s * 1e6);
		rec_sample("dirty_s", "s", dirty_s);
		rec_sample("mtime_dirty_delta_us", "us", ts_us(&s0.st_mtim, &s1.st_mtim));
		rec_sample("ctime_dirty_delta_us", "us", ts_us(&s0.st_ctim, &s1.st_ctim));
		rec_sample("mtime_msync_delta_us", "us", ts_us(&s1.st_mtim, &s2.st_mtim));
		rec_sample("ctime_msync_delta_us", "us", ts_us(&s1.st_ctim, &s2.st_ctim));
		rec_sample("mtime_changed", "bool", ts_us(&s0.st_mtim, &s2.st_mtim) != 0);
		rec_sample("ctime_changed", "bool", ts_us(&s0.st_ctim, &s2.st_ctim) != 0);
	}
	ret = 0;
	goto out_unmap;
out_stat:
	rec_error("msync", errno, "fstat '%s': %s", path, strerror(errno));
out_unmap:
	munmap(map, size);
out_close:
	close(fd);
	return ret;
}

const struct workload wl_msync_async = {
	.name = "msync-async",
	.help = "seed 001: dirty a MAP_SHARED file, time msync(MS_ASYNC), record mtime/ctime",
	.params = msync_params,
	.check = msync_check,
	.run = msync_run,
};
