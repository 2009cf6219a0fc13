/* job.h - a job file or fio:FILE, loaded and checked whole (job.c) */
#ifndef KPAIR_JOB_H
#define KPAIR_JOB_H

struct job;

/*
 * @path: a job file, or "fio:FILE"; @sets: "section.key=value" overrides. The job
 * parsed, checked, and the files its parameters name checked; -1 with an error naming
 * file, line and key.
 */
int job_open(struct job *job, const char *path, char *const *sets, int nset);

#endif
