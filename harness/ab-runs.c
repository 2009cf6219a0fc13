/*
 * ab-runs.c - the A/B's runs: each one's directory and options (an attempt a
 * killed kpair left is moved aside), loaded from disk or run now, and batches
 * of slots at once in child processes (-j N, --hosts, or a backend that takes
 * several runs at once: a LAVA job of several boots).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ab-plan.h"
#include "ab-runs.h"
#include "backends/vm.h"
#include "run.h"
#include "util.h"

const char *const ab_side_names[2] = { "stock", "patched" };

void ab_progress_show(struct progress *p, const char *phase)
{
	double now = mono_now(), el = now - p->t0;
	double per = p->nwall ? p->sum_wall / p->nwall : 0;
	double eta = per * (p->total - p->done) - (p->nwall ? now - p->run_t0 : 0);

	if (!p->tty)
		return;
	if (eta < 0)
		eta = 0;
	fprintf(stderr, "\r\033[K[run %d/%d] %-7s %-8s elapsed %d:%02d  eta %s%d:%02d  %s",
		p->done + 1, p->total, p->side, phase, (int)el / 60, (int)el % 60,
		p->nwall ? "" : "~", (int)eta / 60, (int)eta % 60, p->ratio);
	fflush(stderr);
}

static void on_phase(void *user, const char *phase)
{
	ab_progress_show(user, phase);
}

/* the directory of run @idx of @side, or of its warm-up when @idx < 0 (caller frees) */
char *ab_run_dir(const struct ab_opts *o, int idx, int side)
{
	return idx < 0 ? xasprintf("%s/runs/warmup-%s", o->out_dir, ab_side_names[side]) :
	       xasprintf("%s/runs/%03d-%s", o->out_dir, idx, ab_side_names[side]);
}

/*
 * a run of @side's options into @ro (@sets: room for its --set words), its directory
 * @dir; an attempt an earlier kpair left unfinished is moved aside first, its name in *@old
 */
static void run_opts_fill(const struct ab_opts *o, int side, const char *host,
			  struct progress *pg, char *dir, struct run_opts *ro, char **sets,
			  char **old)
{
	*old = NULL;
	if (path_exists(dir)) {
		/*
		 * killed mid-run: keep what it wrote for the record, run it again (the
		 * lava backend takes the job that attempt submitted back, if any)
		 */
		*old = xasprintf("%s.interrupted-%ld", dir, (long)time(NULL));
		if (rename(dir, *old) < 0) {
			warning("cannot move '%s' aside: %s", dir, strerror(errno));
			free(*old);
			*old = NULL;
		} else {	/* its QEMU died with the killed kpair: the pid is no one's now */
			char *pid = xasprintf("%s/qemu.pid", *old);

			unlink(pid);
			free(pid);
		}
	}
	memset(ro, 0, sizeof(*ro));
	ro->job_path = o->job_path;
	ro->kernel = o->side[side].kernel;
	ro->nset = ab_side_sets(o, side, sets);
	ro->sets = sets;
	ro->out_dir = dir;
	ro->backend = host ? backend_for_hosts()->name : o->backend;
	ro->dest = host ? host : o->uri;
	ro->remote = host != NULL;
	ro->earlier = *old;
	ro->quiet = 1;
	ro->on_phase = on_phase;
	ro->phase_user = pg;
}

/* one run at index @idx: loaded when already on disk, else run now */
json_t *ab_do_run(const struct ab_opts *o, int idx, int side, const char *host,
		      struct progress *pg)
{
	char *dir = ab_run_dir(o, idx, side);
	char *res = xasprintf("%s/result.json", dir), *old = NULL;
	char *sets[2 * AB_MAX_SETS];
	struct run_opts ro;
	json_t *j = NULL;

	if (path_exists(res)) {
		j = json_load_file(res, 0, NULL);
		if (j)
			goto out;
	}
	run_opts_fill(o, side, host, pg, dir, &ro, sets, &old);
	pg->side = ab_side_names[side];
	pg->run_t0 = mono_now();
	util_quiet++;
	run_one(&ro);
	util_quiet--;
	pg->sum_wall += mono_now() - pg->run_t0;
	pg->nwall++;
	j = json_load_file(res, 0, NULL);
	if (!j)
		j = json_pack("{s:s, s:s}", "status", "setup-failed", "reason", "the run wrote no result.json");
out:
	free(old);
	free(res);
	free(dir);
	return j;
}

/* runs a job of the backend takes at once (a LAVA job of several boots); 1: one a time */
int ab_backend_batch(const struct ab_opts *o)
{
	const struct backend *be = o->nhosts ? NULL : backend_find(o->backend);

	if (!be || !be->run_many || !be->batch || be->batch() < 2)
		return 1;
	return be->batch() < AB_MAX_BATCH ? be->batch() : AB_MAX_BATCH;
}

/*
 * The slots @idx[0..@n) handed to the backend at once (backend_batch), those not begun
 * before; the others (a resume's) one by one. A run the backend never booted leaves
 * nothing on disk: the parent runs it again, alone, as any run not on disk.
 */
static void run_group(const struct ab_opts *o, const int *idx, const int *side, int n,
		      struct progress *pg)
{
	struct run_opts ro[AB_MAX_BATCH];
	char *sets[AB_MAX_BATCH][2 * AB_MAX_SETS], *dirs[AB_MAX_BATCH], *old[AB_MAX_BATCH];
	int st[AB_MAX_BATCH], k, m = 0;

	for (k = 0; k < n; k++) {
		char *dir = ab_run_dir(o, idx[k], side[k]);

		if (path_exists(dir)) {
			free(dir);
			json_decref(ab_do_run(o, idx[k], side[k], NULL, pg));
			continue;
		}
		dirs[m] = dir;
		run_opts_fill(o, side[k], NULL, pg, dir, &ro[m], sets[m], &old[m]);
		m++;
	}
	util_quiet++;
	if (m)
		run_many(ro, m, st);
	util_quiet--;
	for (k = 0; k < m; k++) {
		free(old[k]);
		free(dirs[k]);
	}
}

int ab_run_on_disk(const struct ab_opts *o, int idx, int side)
{
	char *dir = ab_run_dir(o, idx, side), *res = xasprintf("%s/result.json", dir);
	int have = path_exists(res);

	free(res);
	free(dir);
	return have;
}

/*
 * -j N or --hosts: the first attempts of a batch of slots run at once, in
 * child processes that write their run directories; the parent then reads
 * them back through do_run like any run already on disk. With -j each slot
 * has its own child; with --hosts each host has one, which runs that host's
 * slots one after the other; a backend that takes several runs at once
 * (backend_batch) gets them in groups of that size, a child a group. Retries
 * run one by one after.
 */
void ab_run_batch(const struct ab_opts *o, const int *idx, const int *side,
		      const char *const *host, int n, struct progress *pg)
{
	pid_t pids[AB_MAX_BATCH];
	int mine[AB_MAX_BATCH] = { 0 }, gi[AB_MAX_BATCH], gs[AB_MAX_BATCH];
	int per = ab_backend_batch(o);
	double t0 = mono_now();
	int k, q, g, started = 0;
	pid_t parent;

	/* -j N with runs a job: the slots shared out, a job a device, none bigger than asked */
	if (per > 1 && o->jobs > 1 && (n + o->jobs - 1) / o->jobs < per)
		per = (n + o->jobs - 1) / o->jobs;

	for (k = 0; k < n; k++) {
		pids[k] = -1;
		if (mine[k] || ab_run_on_disk(o, idx[k], side[k]))
			continue;
		for (q = k; q < n; q++)	/* the slots this child runs */
			mine[q] = q == k || (host[k] && host[q] && !strcmp(host[k], host[q])) ||
				  (per > 1 && q < k + per && !ab_run_on_disk(o, idx[q], side[q]));
		fflush(NULL);
		parent = getpid();
		pids[k] = fork();
		if (pids[k] == 0) {
			struct progress quiet = *pg;

			/*
			 * killed with kpair: a SIGKILLed kpair leaves no child going on with its
			 * runs (a lava job runs on in the lab, and resume takes it back)
			 */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(1);

			quiet.tty = 0;
			for (q = k, g = 0; q < n; q++)
				if (mine[q] && !ab_run_on_disk(o, idx[q], side[q])) {
					gi[g] = idx[q];
					gs[g++] = side[q];
				}
			if (per > 1)
				run_group(o, gi, gs, g, &quiet);
			else
				for (q = 0; q < g; q++)
					json_decref(ab_do_run(o, gi[q], gs[q], host[k], &quiet));
			_exit(0);
		}
		if (pids[k] < 0) {
			warning("fork: %s: run %d runs later, alone", strerror(errno), idx[k]);
			continue;
		}
		for (q = k; q < n; q++)
			started += mine[q];
	}
	for (k = 0; k < n; k++)
		if (pids[k] > 0)
			while (waitpid(pids[k], NULL, 0) < 0 && errno == EINTR)
				;
	if (started) {
		pg->sum_wall += (mono_now() - t0) * started / n;
		pg->nwall += started;
	}
}
