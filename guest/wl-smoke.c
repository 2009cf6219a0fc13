/*
 * wl-smoke.c - the walking-skeleton workload: write `size` bytes in `bs`
 * chunks, fsync, drop caches, read them back and check the pattern.
 * Samples: write_s, read_s (seconds), write_bytes, read_bytes (bytes).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "workload.h"

static const struct wl_param smoke_params[] = {
	{ "size", UNIT_SIZE, "64M", 4096, 1ULL << 40, "bytes written and read back" },
	{ "bs", UNIT_SIZE, "1M", 512, 64ULL << 20, "size of each write and read" },
	{ NULL },
};

static void fill(char *buf, size_t len, uint64_t off, uint64_t seed)
{
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t v = (off + i) ^ seed;

		memcpy(buf + i, &v, 8);
	}
}

static int smoke_run(struct wl_ctx *ctx)
{
	uint64_t size = wl_param(ctx, &wl_smoke, "size");
	uint64_t bs = wl_param(ctx, &wl_smoke, "bs");
	char path[256], *buf, *want;
	uint64_t off, done = 0;
	double t0, t1;
	int fd, ret = -1;

	snprintf(path, sizeof(path), "%s/smoke.dat", ctx->mnt);
	buf = malloc(bs);
	want = malloc(bs);
	if (!buf || !want) {
		rec_error("smoke", ENOMEM, "cannot allocate %llu bytes", (unsigned long long)bs);
		goto out_free;
	}
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0) {
		rec_error("smoke", errno, "cannot create '%s': %s", path, strerror(errno));
		goto out_free;
	}
	t0 = wl_now();
	for (off = 0; off < size; off += bs) {
		size_t n = size - off < bs ? size - off : bs;

		fill(buf, n, off, ctx->seed);
		if (wl_write_full(fd, buf, n) < 0) {
			rec_error("smoke", errno, "write at %llu: %s",
				  (unsigned long long)off, strerror(errno));
			goto out_close;
		}
		done += n;
	}
	if (fsync(fd) < 0) {
		rec_error("smoke", errno, "fsync: %s", strerror(errno));
		goto out_close;
	}
	t1 = wl_now();
	close(fd);
	rec_sample("write_s", "s", t1 - t0);
	rec_sample("write_bytes", "B", (double)done);

	wl_drop_caches();
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		rec_error("smoke", errno, "cannot open '%s': %s", path, strerror(errno));
		goto out_free;
	}
	done = 0;
	t0 = wl_now();
	for (off = 0; off < size; off += bs) {
		size_t n = size - off < bs ? size - off : bs;

		if (wl_read_full(fd, buf, n) < 0) {
			rec_error("smoke", errno, "read at %llu: %s",
				  (unsigned long long)off, strerror(errno));
			goto out_close;
		}
		fill(want, n, off, ctx->seed);
		if (memcmp(buf, want, n)) {
			rec_error("smoke", EIO, "data read back at %llu differs from what was written",
				  (unsigned long long)off);
			goto out_close;
		}
		done += n;
	}
	t1 = wl_now();
	rec_sample("read_s", "s", t1 - t0);
	rec_sample("read_bytes", "B", (double)done);
	ret = 0;
out_close:
	close(fd);
out_free:
	free(want);
	free(buf);
	return ret;
}

const struct workload wl_smoke = {
	.name = "smoke",
	.help = "write size bytes, fsync, drop caches, read back and verify",
	.params = smoke_params,
	.run = smoke_run,
};
