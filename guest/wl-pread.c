/*
 * wl-pread.c - pread-partial, seed 000 (Hisashi Hifumi, linux-ext4, 2008):
 * partially-uptodate page reads when the fs block is smaller than a page.
 * The post's own program, step for step:
 *   1. create a file_size file with io_size write()s (zero buffer); close; umount
 *   2. mount again (cold cache); pwrite io_size at pwrite_count random
 *      io_size-aligned offsets
 *   3. time pread_count preads of io_size at random aligned offsets
 * Offsets come from the job's seed (one stream, pwrites then preads, as the
 * post's random() calls run on), so both kernels of a pair see the same ones.
 * Samples: pread_s (the published figure), pwrite_s, create_s, remount_s,
 * file_bytes, create_writes, pwrite_ops, pread_ops, offset_digest (a hash of
 * every offset, equal for equal seeds) and the per-pread latency
 * summary pread_lat_* (percentiles and a log2 histogram adding up to pread_ops).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "workload.h"

enum { P_FILE_SIZE, P_IO_SIZE, P_PWRITES, P_PREADS, P_SCALE };

static const struct wl_param pread_params[] = {
	[P_FILE_SIZE] = { "file_size", UNIT_SIZE, "512M", 4096, 1ULL << 40, "test file, written with io_size writes" },
	[P_IO_SIZE] = { "io_size", UNIT_SIZE, "1K", 512, 1ULL << 20, "size and alignment of every write, pwrite and pread" },
	[P_PWRITES] = { "pwrite_count", UNIT_COUNT, "300000", 1, 1000000000, "random pwrites after the remount" },
	[P_PREADS] = { "pread_count", UNIT_COUNT, "100000", 1, 10000000, "random preads, timed" },
	[P_SCALE] = WL_SCALE_PARAM,
	{ NULL },
};

struct pread_plan {
	uint64_t file_size, io_size, pwrites, preads;
};

static void pread_plan(const uint64_t *val, struct pread_plan *p)
{
	uint64_t scale = val[P_SCALE];

	p->io_size = val[P_IO_SIZE];
	p->file_size = wl_scaled(val[P_FILE_SIZE], scale, p->io_size, p->io_size);
	p->pwrites = wl_scaled(val[P_PWRITES], scale, 1, 1);
	p->preads = wl_scaled(val[P_PREADS], scale, 1, 1);
}

static int pread_check(const uint64_t *val, const struct wl_disk *disk, char *why, size_t len)
{
	struct pread_plan p;

	pread_plan(val, &p);
	if (val[P_FILE_SIZE] % val[P_IO_SIZE]) {
		snprintf(why, len, "file_size %llu is not a multiple of io_size %llu",
			 (unsigned long long)val[P_FILE_SIZE], (unsigned long long)val[P_IO_SIZE]);
		return -1;
	}
	if (!strcmp(disk->fs, "none")) {
		snprintf(why, len, "needs a filesystem (disk.fs = none)");
		return -1;
	}
	return wl_check_fits("file_size", p.file_size, disk, why, len);
}

static int pread_run(struct wl_ctx *ctx)
{
	struct pread_plan p;
	struct wl_rand rnd;
	uint64_t i, nblocks, off, digest = 0xcbf29ce484222325ULL;
	double t0, t1, *lat = NULL;
	char path[256], *buf;
	int fd = -1, ret = -1;

	pread_plan(ctx->val, &p);
	nblocks = p.file_size / p.io_size;
	wl_rand_init(&rnd, ctx->seed, 0);
	snprintf(path, sizeof(path), "%s/testfile", ctx->mnt);
	buf = calloc(1, p.io_size);
	lat = malloc(p.preads * sizeof(*lat));
	if (!buf || !lat) {
		rec_error("pread", ENOMEM, "cannot allocate the latency table");
		goto out_free;
	}

	/* 1: create with io_size writes, close, umount */
	fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0) {
		rec_error("pread", errno, "cannot create '%s': %s", path, strerror(errno));
		goto out_free;
	}
	t0 = wl_now();
	for (i = 0; i < nblocks; i++) {
		if (wl_write_full(fd, buf, p.io_size) < 0) {
			rec_error("pread", errno, "write %llu of %llu: %s", (unsigned long long)i,
				  (unsigned long long)nblocks, strerror(errno));
			goto out_close;
		}
	}
	close(fd);
	fd = -1;
	t1 = wl_now();
	rec_sample("create_s", "s", t1 - t0);
	rec_sample("create_writes", "ops", (double)i);

	/* 2: umount, mount (cold cache), random pwrites */
	t0 = wl_now();
	if (wl_remount(ctx) < 0)
		goto out_free;
	rec_sample("remount_s", "s", wl_now() - t0);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		rec_error("pread", errno, "cannot open '%s': %s", path, strerror(errno));
		goto out_free;
	}
	t0 = wl_now();
	for (i = 0; i < p.pwrites; i++) {
		off = wl_rand_below(&rnd, nblocks) * p.io_size;
		digest = (digest ^ off) * 0x100000001b3ULL;
		if (pwrite(fd, buf, p.io_size, (off_t)off) != (ssize_t)p.io_size) {
			rec_error("pread", errno, "pwrite at %llu: %s", (unsigned long long)off,
				  strerror(errno));
			goto out_close;
		}
	}
	t1 = wl_now();
	rec_sample("pwrite_s", "s", t1 - t0);
	rec_sample("pwrite_ops", "ops", (double)i);

	/* 3: the timed random preads */
	t0 = wl_now();
	for (i = 0; i < p.preads; i++) {
		double a;

		off = wl_rand_below(&rnd, nblocks) * p.io_size;
		digest = (digest ^ off) * 0x100000001b3ULL;
		a = wl_now();
		if (pread(fd, buf, p.io_size, (off_t)off) != (ssize_t)p.io_size) {
			rec_error("pread", errno ? errno : EIO, "pread at %llu: %s",
				  (unsigned long long)off, errno ? strerror(errno) : "short read");
			goto out_close;
		}
		lat[i] = (wl_now() - a) * 1e6;
	}
	t1 = wl_now();
	rec_sample("pread_s", "s", t1 - t0);
	rec_sample("pread_ops", "ops", (double)i);
	rec_sample("file_bytes", "B", (double)p.file_size);
	rec_sample("io_bytes", "B", (double)p.io_size);
	/* FNV-1a of every offset, cut to 8 digits: the same seed, the same offsets */
	rec_sample("offset_digest", "hash", (double)(digest % 100000000));
	if (wl_lat_report("pread_lat", lat, p.preads) < 0)
		goto out_close;
	ret = 0;
out_close:
	if (fd >= 0)
		close(fd);
out_free:
	free(lat);
	free(buf);
	return ret;
}

const struct workload wl_pread_partial = {
	.name = "pread-partial",
	.help = "seed 000: write a file in io_size pieces, remount, random pwrites, timed random preads",
	.params = pread_params,
	.check = pread_check,
	.run = pread_run,
};
