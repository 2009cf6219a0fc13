/*
 * wl-fill.c - TEST ONLY (fault injection): fills the scratch disk. Writes
 * bs-byte chunks to /mnt/fill until a write or the fsync fails or max bytes
 * are written. ENOSPC (or any error) is reported as an error record naming
 * the bytes written, so the run is workload-failed with that reason; reaching
 * max sends fill_bytes and finishes. Not a benchmark.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "workload.h"

enum { P_BS, P_MAX };

static const struct wl_param fill_params[] = {
	[P_BS] = { "bs", UNIT_SIZE, "1M", 512, 64ULL << 20, "bytes per write" },
	[P_MAX] = { "max", UNIT_SIZE, "1T", 4096, 1ULL << 50, "stop after this many bytes" },
	{ NULL },
};

static int fill_run(struct wl_ctx *ctx)
{
	uint64_t bs = ctx->val[P_BS], max = ctx->val[P_MAX], done = 0;
	char path[256], *buf;
	int fd, ret = -1;

	snprintf(path, sizeof(path), "%s/fill", ctx->mnt);
	buf = malloc(bs);
	if (!buf)
		return rec_error("fill", ENOMEM, "cannot allocate %llu bytes", (unsigned long long)bs);
	memset(buf, 0xa5, bs);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0) {
		rec_error("fill", errno, "cannot create '%s': %s", path, strerror(errno));
		goto out_free;
	}
	while (done < max) {
		size_t n = max - done < bs ? max - done : bs;
		ssize_t k = write(fd, buf, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int e = k < 0 ? errno : ENOSPC;

			rec_error("fill", e, "scratch disk full after %llu bytes: write: %s",
				  (unsigned long long)done, strerror(e));
			goto out_close;
		}
		done += k;
	}
	if (fsync(fd) < 0) {
		rec_error("fill", errno, "fsync after %llu bytes: %s", (unsigned long long)done,
			  strerror(errno));
		goto out_close;
	}
	rec_sample("fill_bytes", "B", (double)done);
	ret = 0;
out_close:
	close(fd);
out_free:
	free(buf);
	return ret;
}

const struct workload wl_fill = {
	.name = "fill",
	.help = "TEST ONLY: write until the scratch disk is full: ENOSPC is workload-failed",
	.params = fill_params,
	.run = fill_run,
};
