/*
 * wl-dd.c - dd, seed 003 (GNU Hurd ext2fs data_unlock, 2010): what
 * `dd if=/dev/zero of=/mnt/sink bs=1M count=51` does on a newly made fs:
 * open /dev/zero and /mnt/sink (O_CREAT, truncated), then `count` rounds of
 * read(bs) from /dev/zero and write(bs) to the sink, then close, timed from
 * before the first read to after the close, as dd's own clock runs (no sync
 * unless fsync=1, dd's conv=fsync). Samples like dd's last line: dd_bytes
 * (B), dd_s (s, the published figure), dd_MBps (decimal MB/s, as dd prints),
 * plus dd_blocks (ops) and, with fsync=1, dd_fsync_s.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "workload.h"

enum { P_BS, P_COUNT, P_FSYNC, P_SCALE };

static const struct wl_param dd_params[] = {
	[P_BS] = { "bs", UNIT_SIZE, "1M", 512, 64ULL << 20, "dd bs=: bytes per read and write" },
	[P_COUNT] = { "count", UNIT_COUNT, "51", 1, 100000000, "dd count=: blocks written" },
	[P_FSYNC] = { "fsync", UNIT_COUNT, "0", 0, 1, "1: fsync before close (dd conv=fsync)" },
	[P_SCALE] = WL_SCALE_PARAM,
	{ NULL },
};

static int dd_check(const uint64_t *val, const struct wl_disk *disk, char *why, size_t len)
{
	uint64_t blocks = wl_scaled(val[P_COUNT], val[P_SCALE], 1, 1);

	if (!strcmp(disk->fs, "none")) {
		snprintf(why, len, "needs a filesystem (disk.fs = none)");
		return -1;
	}
	if (val[P_COUNT] > UINT64_MAX / val[P_BS]) {
		snprintf(why, len, "bs x count overflows");
		return -1;
	}
	return wl_check_fits("bs x count", blocks * val[P_BS], disk, why, len);
}

static int dd_run(struct wl_ctx *ctx)
{
	uint64_t bs = ctx->val[P_BS], blocks = wl_scaled(ctx->val[P_COUNT], ctx->val[P_SCALE], 1, 1);
	uint64_t i, bytes = 0;
	double t0, t1, tf = 0;
	char path[256], *buf;
	int in = -1, out = -1, ret = -1;

	snprintf(path, sizeof(path), "%s/sink", ctx->mnt);
	buf = malloc(bs);
	if (!buf)
		return rec_error("dd", ENOMEM, "cannot allocate %llu bytes", (unsigned long long)bs);
	in = open("/dev/zero", O_RDONLY);
	if (in < 0) {
		rec_error("dd", errno, "cannot open /dev/zero: %s", strerror(errno));
		goto out_free;
	}
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		rec_error("dd", errno, "cannot create '%s': %s", path, strerror(errno));
		goto out_close;
	}
	t0 = wl_now();
	for (i = 0; i < blocks; i++) {
		if (wl_read_full(in, buf, bs) < 0) {
			rec_error("dd", errno, "read /dev/zero: %s", strerror(errno));
			goto out_close;
		}
		if (wl_write_full(out, buf, bs) < 0) {
			rec_error("dd", errno, "write block %llu: %s", (unsigned long long)i,
				  strerror(errno));
			goto out_close;
		}
		bytes += bs;
	}
	if (ctx->val[P_FSYNC]) {
		tf = wl_now();
		if (fsync(out) < 0) {
			rec_error("dd", errno, "fsync: %s", strerror(errno));
			goto out_close;
		}
		tf = wl_now() - tf;
	}
	if (close(out) < 0) {
		out = -1;
		rec_error("dd", errno, "close '%s': %s", path, strerror(errno));
		goto out_close;
	}
	out = -1;
	t1 = wl_now();
	rec_sample("dd_bytes", "B", (double)bytes);
	rec_sample("dd_blocks", "ops", (double)i);
	rec_sample("dd_s", "s", t1 - t0);
	rec_sample("dd_MBps", "MB/s", bytes / 1e6 / (t1 - t0));
	if (ctx->val[P_FSYNC])
		rec_sample("dd_fsync_s", "s", tf);
	ret = 0;
out_close:
	if (out >= 0)
		close(out);
	if (in >= 0)
		close(in);
out_free:
	free(buf);
	return ret;
}

const struct workload wl_dd = {
	.name = "dd",
	.help = "seed 003: dd if=/dev/zero of=/mnt/sink bs=1M count=51, timed like dd",
	.params = dd_params,
	.check = dd_check,
	.run = dd_run,
};
