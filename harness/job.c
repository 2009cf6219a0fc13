/*
 * job.c - a job as the user names it: a job file, or fio:FILE (a fio job file of their
 * own in kpair's fio-job template, bench.c); parsed and checked (config.c), then the files
 * its parameters name checked too (bench.c).
 */
#include <string.h>

#include "bench.h"
#include "config.h"
#include "job.h"

int job_open(struct job *job, const char *path, char *const *sets, int nset)
{
	int ret = !strncmp(path, "fio:", 4) ? bench_job_load_fio(job, path + 4, sets, nset) :
		  job_load(job, path, sets, nset);

	return ret < 0 ? -1 : bench_check(job);
}
