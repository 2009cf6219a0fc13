/*
 * bench.c - the user's own benchmarks, host side: text and file parameters of
 * a workload, their checks before any boot (the fio job file's in
 * bench-fio.c), and the files they put in the initramfs.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "util.h"

#define BENCH_FILE_MAX (256ULL << 20)	/* the initramfs is held in guest RAM */
#define BENCH_COPY_MAX (256 << 10)	/* a run keeps a copy of files up to this size */

const char *job_param_text(const struct job *job, int i)
{
	int k;

	for (k = 0; k < job->nparams; k++)
		if (!strcmp(job->params[k].key, job->wl->params[i].name))
			return job->params[k].value;
	return job->wl->params[i].def;
}

char *bench_param_value(const struct job *job, int i)
{
	const struct wl_param *p = &job->wl->params[i];

	if (p->kind == UNIT_FILE)	/* the guest's copy of it */
		return xasprintf("%s/%s", WL_FILES_DIR, p->name);
	if (p->kind == UNIT_STRING)
		return xstrdup(job_param_text(job, i));
	return xasprintf("%llu%s", (unsigned long long)job->pval[i],
			 p->kind == UNIT_DURATION ? "ms" : "");
}

static const struct job_param *given(const struct job *job, int i)
{
	int k;

	for (k = 0; k < job->nparams; k++)
		if (!strcmp(job->params[k].key, job->wl->params[i].name))
			return &job->params[k];
	return NULL;
}

char *bench_file_path(const struct job *job, int i)
{
	const struct job_param *p = given(job, i);
	const char *v = job_param_text(job, i), *slash;

	if (v[0] == '/' || !p || !p->line || !(slash = strrchr(job->file, '/')))
		return xstrdup(v);
	return xasprintf("%.*s/%s", (int)(slash - job->file), job->file, v);
}

const char *bench_param_at(const struct job *job, int i, char *buf, size_t len)
{
	const struct job_param *p = given(job, i);

	if (p && p->line)
		snprintf(buf, len, "%s:%u", job->file, p->line);
	else
		snprintf(buf, len, "%s", p ? "--set" : job->file);
	return buf;
}

static int check_file(const struct job *job, int i)
{
	const char *name = job->wl->params[i].name;
	char at[PATH_MAX + 16], *path;
	struct stat st;
	int ret = -1;

	bench_param_at(job, i, at, sizeof(at));
	if (!job_param_text(job, i)[0])
		return error("%s: params.%s: required: workload %s runs it", at, name,
			     job->wl->name);
	path = bench_file_path(job, i);
	if (stat(path, &st) < 0)
		error("%s: params.%s: '%s': %s", at, name, path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		error("%s: params.%s: '%s': not a regular file", at, name, path);
	else if ((uint64_t)st.st_size > BENCH_FILE_MAX)
		error("%s: params.%s: '%s': %lld bytes, more than the %llu MiB the initramfs takes",
		      at, name, path, (long long)st.st_size, BENCH_FILE_MAX >> 20);
	else if (access(path, R_OK) < 0)
		error("%s: params.%s: '%s': %s", at, name, path, strerror(errno));
	else
		ret = 0;
	free(path);
	return ret;
}

int bench_check(const struct job *job)
{
	char *path;
	int i, ret = 0;

	for (i = 0; job->wl->params[i].name; i++)
		if (job->wl->params[i].kind == UNIT_FILE && check_file(job, i) < 0)
			return -1;
	if (!strcmp(job->wl->name, "fio-job")) {
		path = bench_file_path(job, workload_param_index(job->wl, "jobfile"));
		ret = fio_jobfile_check(path);
		free(path);
	} else if (!strcmp(job->wl->name, "command")) {
		ret = command_check(job);
	} else if (!strcmp(job->wl->name, "host-command")) {
		ret = host_command_check(job);
	} else if (!strcmp(job->wl->name, "stress-ng")) {
		ret = stressng_check(job);
	}
	return ret;
}

int bench_has_files(const struct workload *wl)
{
	int i;

	for (i = 0; wl->params[i].name; i++)
		if (wl->params[i].kind == UNIT_FILE)
			return 1;
	return 0;
}

int bench_job_load_fio(struct job *job, const char *file, char *const *sets, int nset)
{
	char **all, *tmpl, *base, *dot, *p;
	struct stat st;
	int i, ret;

	if (stat(file, &st) < 0)
		return error("fio:%s: %s", file, strerror(errno));
	all = xcalloc(nset + 2, sizeof(char *));
	/* the run id carries the fio file's name */
	base = xstrdup(strrchr(file, '/') ? strrchr(file, '/') + 1 : file);
	if ((dot = strrchr(base, '.')) && dot != base)
		*dot = '\0';
	for (p = base; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", *p))
			*p = '_';
	all[0] = xasprintf("params.jobfile=%s", file);
	all[1] = xasprintf("job.name=fio-%.40s", base);
	for (i = 0; i < nset; i++)
		all[i + 2] = sets[i];
	tmpl = xasprintf("%s/configs/jobs/fio-job.job", kpair_root());
	ret = job_load(job, tmpl, all, nset + 2);
	free(tmpl);
	free(all[0]);
	free(all[1]);
	free(all);
	free(base);
	return ret;
}

void bench_files_init(struct bench_files *bf)
{
	memset(bf, 0, sizeof(*bf));
}

void bench_files_release(struct bench_files *bf)
{
	int i;

	for (i = 0; i < bf->n; i++) {
		free(bf->src[i]);
		free(bf->dst[i]);
	}
	bench_files_init(bf);
}

int bench_files_add(struct bench_files *bf, const struct job *job, struct initramfs_spec *is,
		    const char *dir)
{
	struct stat st;
	int i, dir_added = 0;

	for (i = 0; job->wl->params[i].name; i++) {
		const char *name = job->wl->params[i].name;
		char *copy;

		if (job->wl->params[i].kind != UNIT_FILE)
			continue;
		if (is->nextra + 2 > INITRAMFS_EXTRA_MAX)
			return error("too many files for the initramfs (%d)", INITRAMFS_EXTRA_MAX);
		if (!dir_added++)
			is->extra[is->nextra++] = (struct initramfs_file){ NULL, &WL_FILES_DIR[1], 0755 };
		bf->src[bf->n] = bench_file_path(job, i);
		bf->dst[bf->n] = xasprintf("%s/%s", &WL_FILES_DIR[1], name);
		is->extra[is->nextra++] = (struct initramfs_file){ bf->src[bf->n], bf->dst[bf->n], 0755 };
		if (stat(bf->src[bf->n], &st) < 0) {
			bf->n++;
			return error("'%s': %s", bf->src[bf->n - 1], strerror(errno));
		}
		if (st.st_size <= BENCH_COPY_MAX) {
			copy = xasprintf("%s/param-%s", dir, name);
			if (copy_file(bf->src[bf->n], copy) < 0) {
				free(copy);
				bf->n++;
				return -1;
			}
			free(copy);
		}
		bf->n++;
	}
	return 0;
}
