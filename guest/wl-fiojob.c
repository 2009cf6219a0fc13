/*
 * wl-fiojob.c - fio-job: real fio (the static build of scripts/build-fio, put
 * in /kpair/tools/fio) on the user's own job file. The harness checked the
 * file before the boot (harness/bench.c: no option that leaves the scratch
 * disk, fio --parse-only) and put it in the initramfs; here a [global]
 * section setting directory= to the scratch fs goes in front of it, fio runs
 * there with --output-format=json, and every job (or group, with
 * group_reporting) of its JSON becomes samples named <job>.<dir>.<field>:
 *
 *   <job>.<read|write|trim>.bw            KiB/s   (higher is better)
 *   <job>.<read|write|trim>.iops          ops/s   (higher)
 *   <job>.<read|write|trim>.io_bytes      B       (fio's byte count)
 *   <job>.<read|write|trim>.runtime       ms      (lower)
 *   <job>.<read|write|trim>.clat_ns.mean, .p50, .p99, .p99.9   ns (lower)
 *   <job>.sync.lat_ns.mean                ns      (with fsync= or fdatasync=)
 *   <job>.usr_cpu, <job>.sys_cpu          %
 *
 * A direction with no I/O sends nothing. <job> is fio's job name with any
 * character but [A-Za-z0-9_-] turned into '_'; a name seen before gets
 * _2, _3... A job with a non-zero error, or fio exiting non-zero, is an error
 * record with the tail of fio's stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "jwalk.h"
#include "record.h"
#include "workload.h"

enum { P_JOBFILE };

static const struct wl_param fiojob_params[] = {
	[P_JOBFILE] = { "jobfile", UNIT_FILE, "", 0, 4096,
			"the fio job file, on the host (relative: to the kpair job file's directory); "
			"its directory= is the scratch fs" },
	{ NULL },
};

#define FIO_BIN "/kpair/tools/fio"
#define FJ_JOB "/tmp/kpair-fio-user.job"
#define FJ_OUT_MAX (32 << 20)
#define FJ_MAX_JOBS 16
#define FJ_NAME_MAX 32

enum { D_READ, D_WRITE, D_TRIM, D_SYNC, ND };
static const char *const dir_names[ND] = { "read", "write", "trim", "sync" };

enum { F_TOTAL_IOS, F_IO_BYTES, F_BW, F_IOPS, F_RUNTIME, F_CLAT_MEAN, F_P50, F_P99, F_P999,
       F_LAT_MEAN, NF };

/* fio's JSON field under jobs/N/<dir>/, and the sample it becomes (NULL: none) */
static const struct {
	const char *path, *metric, *unit;
} fields[NF] = {
	[F_TOTAL_IOS] = { "total_ios", NULL, NULL },
	[F_IO_BYTES] = { "io_bytes", "io_bytes", "B" },
	[F_BW] = { "bw", "bw", "KiB/s" },
	[F_IOPS] = { "iops", "iops", "ops/s" },
	[F_RUNTIME] = { "runtime", "runtime", "ms" },
	[F_CLAT_MEAN] = { "clat_ns/mean", "clat_ns.mean", "ns" },
	[F_P50] = { "clat_ns/percentile/50.000000", "clat_ns.p50", "ns" },
	[F_P99] = { "clat_ns/percentile/99.000000", "clat_ns.p99", "ns" },
	[F_P999] = { "clat_ns/percentile/99.900000", "clat_ns.p99.9", "ns" },
	[F_LAT_MEAN] = { "lat_ns/mean", "lat_ns.mean", "ns" },
};

struct fj_job {
	char name[FJ_NAME_MAX + 8];
	double v[ND][NF];
	unsigned char seen[ND][NF];
	double error, usr_cpu, sys_cpu;
};

struct fj {
	struct fj_job job[FJ_MAX_JOBS];
	int n;		/* entries seen, FJ_MAX_JOBS at most */
	int more;	/* an entry past FJ_MAX_JOBS */
};

static int fiojob_check(const uint64_t *val, const struct wl_disk *disk, char *why, size_t len)
{
	(void)val;
	if (!strcmp(disk->fs, "none")) {
		snprintf(why, len, "needs a filesystem (disk.fs = none): fio's directory= is the scratch fs");
		return -1;
	}
	return 0;
}

/* the fio-jobs entry @path is about ("jobs/3/..."), its rest in *rest; NULL if none */
static struct fj_job *fj_entry(struct fj *f, const char *path, const char **rest)
{
	char *end;
	long i;

	if (strncmp(path, "jobs/", 5))
		return NULL;
	i = strtol(path + 5, &end, 10);
	if (end == path + 5 || *end != '/' || i < 0)
		return NULL;
	if (i >= FJ_MAX_JOBS) {
		f->more = 1;
		return NULL;
	}
	if (i >= f->n)
		f->n = i + 1;
	*rest = end + 1;
	return &f->job[i];
}

static void fj_num(void *user, const char *path, double v)
{
	struct fj *f = user;
	const char *rest;
	struct fj_job *j = fj_entry(f, path, &rest);
	int d, k;

	if (!j)
		return;
	if (!strcmp(rest, "error"))
		j->error = v;
	else if (!strcmp(rest, "usr_cpu"))
		j->usr_cpu = v;
	else if (!strcmp(rest, "sys_cpu"))
		j->sys_cpu = v;
	for (d = 0; d < ND; d++) {
		size_t n = strlen(dir_names[d]);

		if (strncmp(rest, dir_names[d], n) || rest[n] != '/')
			continue;
		for (k = 0; k < NF; k++)
			if (!strcmp(rest + n + 1, fields[k].path)) {
				j->v[d][k] = v;
				j->seen[d][k] = 1;
			}
	}
}

static void fj_str(void *user, const char *path, const char *s)
{
	struct fj *f = user;
	const char *rest;
	struct fj_job *j = fj_entry(f, path, &rest);
	size_t i;

	if (!j || strcmp(rest, "jobname"))
		return;
	for (i = 0; s[i] && i < FJ_NAME_MAX; i++) {
		char c = s[i];

		j->name[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9') || c == '_' || c == '-' ? c : '_';
	}
	j->name[i] = '\0';
}

/* a job name seen before in the output gets _2, _3, ... */
static void fj_unique_names(struct fj *f)
{
	int i, k, same;

	for (i = 0; i < f->n; i++) {
		if (!f->job[i].name[0])
			snprintf(f->job[i].name, sizeof(f->job[i].name), "job%d", i);
		for (same = 1, k = 0; k < i; k++)
			same += !strncmp(f->job[k].name, f->job[i].name, FJ_NAME_MAX);
		if (same > 1) {
			size_t n = strnlen(f->job[i].name, FJ_NAME_MAX);

			snprintf(f->job[i].name + n, sizeof(f->job[i].name) - n, "_%d", same);
		}
	}
}

static int fj_sample(const char *job, const char *what, const char *unit, double v)
{
	char m[96];

	snprintf(m, sizeof(m), "%s.%s", job, what);
	return rec_sample(m, unit, v);
}

static int fj_report(struct fj *f)
{
	int i, d, k;

	if (!f->n)
		return rec_error("fio", EINVAL, "fio's JSON has no jobs");
	if (f->more)
		return rec_error("fio", E2BIG, "fio reported more than %d jobs: use "
				 "group_reporting or fewer jobs", FJ_MAX_JOBS);
	fj_unique_names(f);
	for (i = 0; i < f->n; i++) {
		struct fj_job *j = &f->job[i];

		if (j->error)
			return rec_error("fio", (int)j->error, "fio job %s: error %d (%s)", j->name,
					 (int)j->error, strerror((int)j->error));
		if (!j->seen[D_READ][F_TOTAL_IOS] || !j->seen[D_WRITE][F_TOTAL_IOS])
			return rec_error("fio", EINVAL, "fio's JSON has no read or write "
					 "total_ios for job %s", j->name);
	}
	for (i = 0; i < f->n; i++) {
		struct fj_job *j = &f->job[i];

		for (d = 0; d < ND; d++) {
			char what[64];

			if (!j->seen[d][F_TOTAL_IOS] || j->v[d][F_TOTAL_IOS] <= 0)
				continue;
			for (k = 0; k < NF; k++) {
				/* reads, writes and trims: their bytes and completion latency; syncs: latency */
				if (!fields[k].metric || !j->seen[d][k] ||
				    (d == D_SYNC) != (k == F_LAT_MEAN))
					continue;
				snprintf(what, sizeof(what), "%s.%s", dir_names[d], fields[k].metric);
				if (fj_sample(j->name, what, fields[k].unit, j->v[d][k]) < 0)
					return -1;
			}
		}
		if (fj_sample(j->name, "usr_cpu", "%", j->usr_cpu) < 0 ||
		    fj_sample(j->name, "sys_cpu", "%", j->sys_cpu) < 0)
			return -1;
	}
	return 0;
}

/* the user's job behind a [global] that puts every file on the scratch fs */
static int fj_write_job(const struct wl_ctx *ctx)
{
	char buf[1 << 14];
	int in, out, ret = -1;
	ssize_t k;

	in = open(ctx->str[P_JOBFILE], O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return rec_error("fio", errno, "cannot open %s: %s", ctx->str[P_JOBFILE],
				 strerror(errno));
	out = open(FJ_JOB, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		rec_error("fio", errno, "cannot create %s: %s", FJ_JOB, strerror(errno));
		goto out_close_in;
	}
	k = snprintf(buf, sizeof(buf), "[global]\ndirectory=%s\n", ctx->mnt);
	if (wl_write_full(out, buf, k) < 0)
		goto out_write;
	while ((k = read(in, buf, sizeof(buf))) > 0)
		if (wl_write_full(out, buf, k) < 0)
			goto out_write;
	if (k < 0) {
		rec_error("fio", errno, "cannot read %s: %s", ctx->str[P_JOBFILE], strerror(errno));
		goto out_close_out;
	}
	ret = 0;
	goto out_close_out;
out_write:
	rec_error("fio", errno, "cannot write %s: %s", FJ_JOB, strerror(errno));
out_close_out:
	close(out);
out_close_in:
	close(in);
	return ret;
}

int fiojob_report(const char *out, size_t len)
{
	struct jwalk jw = { .num = fj_num, .str = fj_str };
	const char *p;
	struct fj *f;
	int ret;

	/* anything fio prints before its JSON (notes, warnings) is skipped */
	for (p = out; p < out + len && !(*p == '{' && (p == out || p[-1] == '\n')); p++)
		;
	if (p == out + len)
		return rec_error("fio", EINVAL, "fio printed no JSON (%zu bytes of output)", len);
	f = calloc(1, sizeof(*f));
	if (!f)
		return rec_error("fio", ENOMEM, "out of memory");
	jw.p = p;
	jw.end = out + len;
	jw.user = f;
	if (jw_value(&jw) < 0)
		ret = rec_error("fio", EINVAL, "fio's JSON does not parse near byte %zu",
				(size_t)(jw.p - out));
	else
		ret = fj_report(f);
	free(f);
	return ret;
}

static int fiojob_run(struct wl_ctx *ctx)
{
	char *const argv[] = { FIO_BIN, "--output-format=json", FJ_JOB, NULL };
	char *const envp[] = { "PATH=/kpair/tools", "TMPDIR=/tmp", "HOME=/tmp", NULL };
	char how[64], tail[400];
	struct child c;
	int ret = -1;

	if (fj_write_job(ctx) < 0)
		return -1;
	child_init(&c);
	if (child_run(&c, "fio", argv, envp, ctx->mnt, FJ_OUT_MAX) < 0)
		goto out;
	if (!WIFEXITED(c.status) || WEXITSTATUS(c.status)) {
		rec_error("fio", ECHILD, "fio %s: %s", child_how(&c, how, sizeof(how)),
			  child_err_tail(&c, tail, sizeof(tail)));
		goto out;
	}
	ret = fiojob_report(c.out, c.len);
	if (!ret)
		ret = rec_sample("fio_elapsed_s", "s", c.elapsed_s);
out:
	child_release(&c);
	return ret;
}

const struct workload wl_fio_job = {
	.name = "fio-job",
	.help = "real fio (static, from Debian's source) on your own job file; every job's "
		"bw, iops, bytes and latency",
	.params = fiojob_params,
	.check = fiojob_check,
	.run = fiojob_run,
	.tool = "fio",
	.kneeds = wl_fio_kneeds,
};
