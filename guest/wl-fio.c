/*
 * wl-fio.c - seed 004 (Eric Sandeen, linux-ext4, 2012): the ext4 fallocate
 * unwritten-extent job, in two forms sharing one parameter set.
 *
 *   fio-randwrite  the job done natively, the way fio does it: create
 *                  /mnt/testfile, posix_fallocate it (fallocate=1), with
 *                  overwrite=1 first write it out sequentially and fsync (fio's
 *                  layout), then write every bs block once in a random order
 *                  (fio's random map) from the job's seed, lseek+write
 *                  (ioengine=sync), fsync after every `fsync` writes but
 *                  the last (fio checks before issuing the next write).
 *                  Samples: bw_KiBps (fio's aggrb: KiB/s over the I/O phase),
 *                  iops, runtime_s, io_bytes, write_ops, layout_s, clat_*
 *                  (write latency summary) and sync_lat_* (fsync latency).
 *   fio            real fio (built from Debian's source by scripts/build-fio and
 *                  put in /kpair/tools/fio by the harness) on the seed's job
 *                  file, --output-format=json, parsed minimally (guest/fio-json
 *                  below). Samples fio_bw_KiBps, fio_iops, fio_runtime_s,
 *                  fio_io_bytes, fio_write_ops, fio_clat_{p50,p90,p99,max,mean}_us,
 *                  fio_sync_ops, fio_sync_lat_mean_us. With native=1 the file is
 *                  then removed, caches dropped (the seed's between-runs recipe)
 *                  and fio-randwrite runs too in the same boot, for the
 *                  native-vs-tool comparison, after an unreported native
 *                  warm-up pass (warmup_s) so neither compared pass is a
 *                  boot's first: warm-up, fio, native (native=2: warm-up,
 *                  native, fio), with removal and cache drop between.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jwalk.h"
#include "record.h"
#include "workload.h"

enum { P_SIZE, P_BS, P_FSYNC, P_FALLOC, P_OVERWRITE, P_SCALE, P_WARMUP, P_NATIVE };

#define FIO_PARAMS \
	[P_SIZE] = { "size", UNIT_SIZE, "1G", 4096, 1ULL << 40, "fio size= and filesize=" }, \
	[P_BS] = { "bs", UNIT_SIZE, "1M", 512, 64ULL << 20, "fio bs=" }, \
	[P_FSYNC] = { "fsync", UNIT_COUNT, "1", 0, 1000000, "fio fsync=: fsync after every N writes (0: never)" }, \
	[P_FALLOC] = { "fallocate", UNIT_COUNT, "1", 0, 1, "fio fallocate=: 1 posix_fallocate the file, 0 none" }, \
	[P_OVERWRITE] = { "overwrite", UNIT_COUNT, "0", 0, 1, "fio overwrite=: 1 write the file out first (overwrite of written blocks)" }, \
	[P_SCALE] = WL_SCALE_PARAM, \
	[P_WARMUP] = { "warmup", UNIT_COUNT, "0", 0, 1, "1: an unreported native pass first (then removal, cache drop)" }

static const struct wl_param native_params[] = {
	FIO_PARAMS,
	{ NULL },
};

static const struct wl_param tool_params[] = {
	FIO_PARAMS,
	[P_NATIVE] = { "native", UNIT_COUNT, "0", 0, 2, "1: warm-up, fio, fio-randwrite in one boot; 2: warm-up, fio-randwrite, fio" },
	{ NULL },
};

#define FIO_BIN "/kpair/tools/fio"
#define FIO_JOB "/tmp/kpair-fio.job"
#define FIO_OUT_MAX (16 << 20)

static uint64_t fio_size(const uint64_t *val)
{
	return wl_scaled(val[P_SIZE], val[P_SCALE], val[P_BS], val[P_BS]);
}

static int fio_check(const uint64_t *val, const struct wl_disk *disk, char *why, size_t len)
{
	if (val[P_SIZE] % val[P_BS]) {
		snprintf(why, len, "size %llu is not a multiple of bs %llu",
			 (unsigned long long)val[P_SIZE], (unsigned long long)val[P_BS]);
		return -1;
	}
	if (!strcmp(disk->fs, "none")) {
		snprintf(why, len, "needs a filesystem (disk.fs = none)");
		return -1;
	}
	return wl_check_fits("size", fio_size(val), disk, why, len);
}

/* fio's layout: create, fallocate, and with overwrite=1 write it all out */
static int native_layout(const char *path, const uint64_t *val, uint64_t size, char *buf)
{
	uint64_t off;
	int fd, err;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return rec_error("fio", errno, "cannot create '%s': %s", path, strerror(errno));
	if (val[P_FALLOC] && (err = posix_fallocate(fd, 0, (off_t)size))) {
		close(fd);
		return rec_error("fio", err, "posix_fallocate %llu bytes: %s",
				 (unsigned long long)size, strerror(err));
	}
	if (ftruncate(fd, (off_t)size) < 0)
		goto out_err;
	for (off = 0; val[P_OVERWRITE] && off < size; off += val[P_BS])
		if (wl_write_full(fd, buf, val[P_BS]) < 0)
			goto out_err;
	if (fsync(fd) < 0)
		goto out_err;
	return close(fd);
out_err:
	err = errno;
	close(fd);
	return rec_error("fio", err, "layout of '%s': %s", path, strerror(err));
}

static int native_pass(struct wl_ctx *ctx, int report)
{
	const uint64_t *val = ctx->val;
	uint64_t size = fio_size(val), bs = val[P_BS], n = size / bs, i, nsync = 0;
	double t0, t1, tl, *clat = NULL, *slat = NULL;
	uint64_t *order = NULL;
	struct wl_rand rnd;
	char path[256], *buf;
	int fd = -1, ret = -1;

	snprintf(path, sizeof(path), "%s/testfile", ctx->mnt);
	buf = malloc(bs);
	order = malloc(n * sizeof(*order));
	clat = malloc(n * sizeof(*clat));
	slat = malloc(n * sizeof(*slat));
	if (!buf || !order || !clat || !slat) {
		rec_error("fio", ENOMEM, "out of memory");
		goto out_free;
	}
	memset(buf, 0xa5, bs);
	tl = wl_now();
	if (native_layout(path, val, size, buf) < 0)
		goto out_free;
	tl = wl_now() - tl;
	/* every block once, in a random order: Fisher-Yates from the seed */
	wl_rand_init(&rnd, ctx->seed, 4);
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n; i > 1; i--) {
		uint64_t j = wl_rand_below(&rnd, i), t = order[i - 1];

		order[i - 1] = order[j];
		order[j] = t;
	}
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		rec_error("fio", errno, "cannot open '%s': %s", path, strerror(errno));
		goto out_free;
	}
	t0 = wl_now();
	for (i = 0; i < n; i++) {
		double a = wl_now(), b;

		if (lseek(fd, (off_t)(order[i] * bs), SEEK_SET) < 0 ||
		    wl_write_full(fd, buf, bs) < 0) {
			rec_error("fio", errno, "write block %llu: %s", (unsigned long long)order[i],
				  strerror(errno));
			goto out_close;
		}
		b = wl_now();
		clat[i] = (b - a) * 1e6;
		/* as fio: a sync after each fsync-th write, checked before the next one */
		if (val[P_FSYNC] && (i + 1) % val[P_FSYNC] == 0 && i + 1 < n) {
			if (fsync(fd) < 0) {
				rec_error("fio", errno, "fsync: %s", strerror(errno));
				goto out_close;
			}
			slat[nsync++] = (wl_now() - b) * 1e6;
		}
	}
	t1 = wl_now();
	if (!report) {
		ret = rec_sample("warmup_s", "s", t1 - t0);
		goto out_close;
	}
	rec_sample("bw_KiBps", "KiB/s", (double)(i * bs) / 1024.0 / (t1 - t0));
	rec_sample("iops", "ops/s", i / (t1 - t0));
	rec_sample("runtime_s", "s", t1 - t0);
	rec_sample("io_bytes", "B", (double)(i * bs));
	rec_sample("write_ops", "ops", (double)i);
	rec_sample("sync_ops", "ops", (double)nsync);
	rec_sample("layout_s", "s", tl);
	if (wl_lat_report("clat", clat, n) < 0 || wl_lat_report("sync_lat", slat, nsync) < 0)
		goto out_close;
	ret = 0;
out_close:
	close(fd);
out_free:
	free(slat);
	free(clat);
	free(order);
	free(buf);
	return ret;
}

static int warm_up(struct wl_ctx *ctx);

static int native_run(struct wl_ctx *ctx)
{
	if (ctx->val[P_WARMUP] && warm_up(ctx) < 0)
		return -1;
	return native_pass(ctx, 1);
}

/* the seed's between-runs recipe: file removal and cache drop */
static int between_runs(const struct wl_ctx *ctx)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/testfile", ctx->mnt);
	if (unlink(path) < 0)
		return rec_error("fio", errno, "cannot remove '%s': %s", path, strerror(errno));
	return wl_drop_caches();
}

/*
 * One unreported native pass before the compared ones: the first pass in a
 * boot pays alone for first touches (guest RAM backed by the host, blocks of
 * the sparse scratch image allocated), about 15-30 % under TCG here.
 */
static int warm_up(struct wl_ctx *ctx)
{
	if (native_pass(ctx, 0) < 0)
		return -1;
	return between_runs(ctx);
}

/* --- real fio --- */

static const struct {
	const char *path, *metric, *unit;
	double mul;
} fio_metrics[] = {
	{ "jobs/0/write/bw", "fio_bw_KiBps", "KiB/s", 1 },
	{ "jobs/0/write/iops", "fio_iops", "ops/s", 1 },
	{ "jobs/0/write/runtime", "fio_runtime_s", "s", 1e-3 },
	{ "jobs/0/write/io_bytes", "fio_io_bytes", "B", 1 },
	{ "jobs/0/write/total_ios", "fio_write_ops", "ops", 1 },
	{ "jobs/0/write/clat_ns/percentile/50.000000", "fio_clat_p50_us", "us", 1e-3 },
	{ "jobs/0/write/clat_ns/percentile/90.000000", "fio_clat_p90_us", "us", 1e-3 },
	{ "jobs/0/write/clat_ns/percentile/99.000000", "fio_clat_p99_us", "us", 1e-3 },
	{ "jobs/0/write/clat_ns/max", "fio_clat_max_us", "us", 1e-3 },
	{ "jobs/0/write/clat_ns/mean", "fio_clat_mean_us", "us", 1e-3 },
	{ "jobs/0/sync/total_ios", "fio_sync_ops", "ops", 1 },
	{ "jobs/0/sync/lat_ns/mean", "fio_sync_lat_mean_us", "us", 1e-3 },
	{ "jobs/0/error", "fio_error", "errno", 1 },
};
#define NFIO (sizeof(fio_metrics) / sizeof(fio_metrics[0]))

struct fio_vals {
	double v[NFIO];
	int seen[NFIO];
};

static void fio_num(void *user, const char *path, double v)
{
	struct fio_vals *f = user;
	size_t i;

	for (i = 0; i < NFIO; i++)
		if (!strcmp(path, fio_metrics[i].path)) {
			f->v[i] = v * fio_metrics[i].mul;
			f->seen[i] = 1;
		}
}

static int write_jobfile(const struct wl_ctx *ctx)
{
	const uint64_t *val = ctx->val;
	FILE *f = fopen(FIO_JOB, "w");

	if (!f)
		return rec_error("fio", errno, "cannot create %s: %s", FIO_JOB, strerror(errno));
	/* the seed's job, with the directory, the scaled size and the recorded seed */
	fprintf(f, "[test]\ndirectory=%s\nfilename=testfile\nrw=randwrite\nsize=%llu\n"
		"filesize=%llu\nbs=%llu\nioengine=sync\nfallocate=%llu\nfsync=%llu\n"
		"overwrite=%llu\nrandseed=%llu\n", ctx->mnt, (unsigned long long)fio_size(val),
		(unsigned long long)fio_size(val), (unsigned long long)val[P_BS],
		(unsigned long long)val[P_FALLOC], (unsigned long long)val[P_FSYNC],
		(unsigned long long)val[P_OVERWRITE], (unsigned long long)ctx->seed);
	if (fclose(f) != 0)
		return rec_error("fio", errno, "cannot write %s: %s", FIO_JOB, strerror(errno));
	return 0;
}

/* run fio with its stdout on a pipe; *out gets everything it printed */
static int spawn_fio(char **out, size_t *len)
{
	char *const argv[] = { FIO_BIN, "--output-format=json", FIO_JOB, NULL };
	char *const envp[] = { "PATH=/kpair/tools", "TMPDIR=/tmp", "HOME=/tmp", NULL };
	size_t cap = 1 << 16, n = 0;
	int pfd[2], st;
	char *buf;
	pid_t pid;

	if (pipe(pfd) < 0)
		return rec_error("fio", errno, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return rec_error("fio", errno, "fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execve(FIO_BIN, argv, envp);
		_exit(127);
	}
	close(pfd[1]);
	buf = malloc(cap + 1);
	while (buf) {
		ssize_t k = read(pfd[0], buf + n, cap - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += k;
		if (n == cap && cap < FIO_OUT_MAX) {
			char *nb = realloc(buf, 2 * cap + 1);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!buf)
		return rec_error("fio", ENOMEM, "out of memory reading fio's output");
	buf[n] = '\0';
	*out = buf;
	*len = n;
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return rec_error("fio", ECHILD, "%s exited with status %d%s", FIO_BIN,
				 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
				 WIFEXITED(st) && WEXITSTATUS(st) == 127 ? " (cannot exec it)" : "");
	return 0;
}

/* one run of real fio on the job file, its JSON turned into fio_* samples */
static int fio_pass(void)
{
	struct fio_vals fv = { { 0 }, { 0 } };
	struct jwalk j = { .num = fio_num, .user = &fv };
	char *out = NULL, *p;
	size_t len = 0, i;
	int ret = -1;

	if (spawn_fio(&out, &len) < 0)
		goto out;
	/* anything fio prints before its JSON (notes, warnings) is skipped */
	for (p = out; *p && !(*p == '{' && (p == out || p[-1] == '\n')); p++)
		;
	j.p = p;
	j.end = out + len;
	if (!*p || jw_value(&j) < 0) {
		rec_error("fio", EINVAL, "fio's JSON does not parse near byte %zu",
			  (size_t)(j.p - out));
		goto out;
	}
	for (i = 0; i < NFIO; i++)
		if (!fv.seen[i] && strncmp(fio_metrics[i].path, "jobs/0/sync", 11)) {
			rec_error("fio", EINVAL, "fio's JSON has no %s", fio_metrics[i].path);
			goto out;
		}
	if (fv.v[NFIO - 1] != 0) {
		rec_error("fio", (int)fv.v[NFIO - 1], "fio reports error %d", (int)fv.v[NFIO - 1]);
		goto out;
	}
	for (i = 0; i + 1 < NFIO; i++)
		if (fv.seen[i] && rec_sample(fio_metrics[i].metric, fio_metrics[i].unit, fv.v[i]) < 0)
			goto out;
	ret = rec_sample("fio_json_bytes", "B", (double)len);
out:
	free(out);
	return ret;
}

/* native=0: fio (after a warm-up with warmup=1); 1: warm-up, fio, native; 2: warm-up, native, fio */
static int tool_run(struct wl_ctx *ctx)
{
	uint64_t mode = ctx->val[P_NATIVE];

	if (write_jobfile(ctx) < 0)
		return -1;
	if ((mode || ctx->val[P_WARMUP]) && warm_up(ctx) < 0)
		return -1;
	if (!mode)
		return fio_pass();
	if (mode == 1)
		return fio_pass() < 0 || between_runs(ctx) < 0 ? -1 : native_pass(ctx, 1);
	return native_pass(ctx, 1) < 0 || between_runs(ctx) < 0 ? -1 : fio_pass();
}

/* fio keeps its jobs' state in one System V shared memory segment */
const struct wl_kneed wl_fio_kneeds[] = {
	{ "SYSVIPC", "fio keeps its jobs' state in System V shared memory (shmget)", NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

const struct workload wl_fio_randwrite = {
	.name = "fio-randwrite",
	.help = "seed 004: fallocated file, 1 MiB random writes each once, fsync after each (native)",
	.params = native_params,
	.check = fio_check,
	.run = native_run,
};

const struct workload wl_fio = {
	.name = "fio",
	.help = "seed 004: real fio (static, from Debian's source) on the seed's job, JSON output",
	.params = tool_params,
	.check = fio_check,
	.run = tool_run,
	.tool = "fio",
	.kneeds = wl_fio_kneeds,
};
