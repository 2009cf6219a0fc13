/* ab.c - the A/B engine: interleaved runs, retries, adaptive stopping, resume */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ab-finish.h"
#include "ab-plan.h"
#include "ab-runs.h"
#include "ab.h"
#include "backends/vm.h"
#include "compare.h"
#include "config.h"
#include "html.h"
#include "job.h"
#include "kernels/kernel.h"
#include "kernels/kneeds.h"
#include "preflight.h"
#include "profilers/profiler.h"
#include "run.h"
#include "summary.h"
#include "util.h"


static const struct metric *primary(const struct cmp *c)
{
	int i;

	if (c->primary >= 0)
		return &c->m[c->primary];
	for (i = 0; i < c->n; i++)
		if (c->m[i].better != BETTER_NONE)
			return &c->m[i];
	return NULL;
}

/* append run @idx of @side (on @host, or NULL) to @order; true when it ended ok */
static int record(json_t *order, int idx, int side, const char *host, json_t *r, int tty)
{
	const char *st = json_string_value(json_object_get(r, "status"));
	const char *reason = json_string_value(json_object_get(r, "reason"));
	const char *run_id = json_string_value(json_object_get(r, "run_id"));
	int good = st && !strcmp(st, "ok");
	json_t *e;

	e = json_pack("{s:i, s:s, s:s, s:s, s:s, s:o}", "index", idx, "side", ab_side_names[side],
		      "run_dir", run_id ? run_id : "", "status", st ? st : "?",
		      "reason", reason ? reason : "", "result", r);
	if (host)
		json_object_set_new(e, "host", json_string(host));
	json_array_append_new(order, e);
	if (!tty)
		printf("ab: run %d %s%s%s: %s%s%s\n", idx + 1, ab_side_names[side], host ? " on " : "",
		       host ? host : "", st ? st : "?", good ? "" : ": ",
		       good ? "" : reason ? reason : "");
	return good;
}

/*
 * A failure that cannot go away: a side whose first runs (its warm-up counts)
 * all failed with the same status and reason - a workload that cannot start, a
 * module the kernel lacks - stops after two, not after runs + retries boots.
 */
struct same_fail {
	int n;			/* such failures in a row; -1 once a run of the side was ok */
	char what[640];		/* "status: reason" */
};

/* @r is a result of the side of @f; 1 when the side's failure is now certain */
static int same_fail_add(struct same_fail *f, json_t *r)
{
	const char *st = json_string_value(json_object_get(r, "status"));
	const char *reason = json_string_value(json_object_get(r, "reason"));
	char what[640];

	if (f->n < 0)
		return 0;
	if (st && !strcmp(st, "ok")) {
		f->n = -1;
		return 0;
	}
	/* the host's own trouble (QEMU killed, a full disk) may pass: it does not count */
	if (st && !run_status_is_guest(st) && strcmp(st, "setup-failed"))
		return 0;
	snprintf(what, sizeof(what), "%s: %s", st ? st : "?", reason ? reason : "");
	if (f->n && strcmp(what, f->what))
		f->n = 0;
	snprintf(f->what, sizeof(f->what), "%s", what);
	return ++f->n >= 2;
}

/*
 * --warmup N (default 1): N boots of the first side to run, before the first
 * run that boots, kept in runs/warmup-<side> and never compared. The first
 * guest after a few idle seconds can be much slower than the ones after it: on
 * this project's hosts (VMs whose freed memory is reported back to their own
 * host) it started 0.19 s after QEMU instead of 0.04 s and its 64 MiB smoke
 * workload took 0.62-0.70 s instead of 0.45-0.53 s, and it would land in one
 * side's sample only. Again on resume, which starts after an idle gap too.
 */
static void warm_up(const struct ab_opts *o, int *warmed, int side, const char *host,
		    struct progress *pg, struct same_fail *sf)
{
	char *dir;
	int i;

	if (*warmed)
		return;
	dir = ab_run_dir(o, -1, side);
	for (i = 0; i < o->warmup; i++) {
		json_t *r;

		rm_rf(dir);	/* a resume's warm-up boots again */
		r = ab_do_run(o, -1, side, host, pg);
		if (!pg->tty)
			printf("ab: warm-up %d of %d (%s, not compared): %s\n", i + 1, o->warmup,
			       ab_side_names[side], json_string_value(json_object_get(r, "status")));
		same_fail_add(&sf[side], r);
		json_decref(r);
	}
	*warmed = 1;
	free(dir);
}

/*
 * slots started together: -j N, or two a host with --hosts, times the runs the backend takes
 * at once; no more than the target needs
 */
static int batch_size(const struct ab_opts *o, const int *ok, int target, int slot)
{
	int nb = (o->nhosts ? 2 * o->nhosts : o->jobs > 1 ? o->jobs : 1) * ab_backend_batch(o);
	int left = 2 * target - ok[0] - ok[1];

	if (nb > AB_MAX_BATCH)
		nb = AB_MAX_BATCH;
	if (ab_backend_batch(o) > 1) {
		/* no more runs than the target needs, and the batch ends on a pair (even slot) */
		if (nb > left)
			nb = left > 1 ? left : 1;
		if ((slot + nb) % 2 && nb < AB_MAX_BATCH)
			nb++;
	} else if (left >= 2 && nb > left) {
		nb = left & ~1;
	}
	return nb;
}

static int ab_loop(struct ab_opts *o, json_t *order, const struct job *job)
{
	struct progress pg = { .tty = isatty(2), .t0 = mono_now() };
	int ok[2] = { 0, 0 }, failed[2] = { 0, 0 }, target = o->runs, slot = 0, idx = 0;
	int warmed = 0, announced = 0, certain = -1;
	struct same_fail sf[2] = { { 0, "" }, { 0, "" } };

	for (;;) {
		int side[AB_MAX_BATCH], first[AB_MAX_BATCH], good[AB_MAX_BATCH], k, attempt, nb;
		const char *host[AB_MAX_BATCH];

		if (slot % 2 == 0 && ok[0] >= target && ok[1] >= target) {
			struct cmp c;
			const struct metric *m;
			json_t *r;
			int more = 0;

			if (o->until_ci > 0 && target < o->max_runs) {
				r = ab_collect(o, order, &c, job);
				m = primary(&c);
				more = !m || isnan(m->c.ratio_lo) ||
				       (m->c.ratio_hi - m->c.ratio_lo) / m->c.ratio * 100 > o->until_ci;
				json_decref(r);
				cmp_release(&c);
			}
			if (!more)
				break;
			target++;
		}
		nb = batch_size(o, ok, target, slot);
		for (k = 0; k < nb; k++) {
			side[k] = ab_slot_side(o->seed, slot + k);
			host[k] = ab_slot_host(o, slot + k);
			first[k] = idx + k;
			if (failed[side[k]] > o->runs + o->retries) {
				if (pg.tty)
					fputc('\n', stderr);
				return error("%d %s runs failed: giving up (see %s/runs)",
					     failed[side[k]], ab_side_names[side[k]], o->out_dir);
			}
		}
		pg.total = 2 * target;
		pg.done = ok[0] + ok[1];
		for (k = 0; k < nb && !warmed; k++)
			if (!ab_run_on_disk(o, first[k], side[k]))
				warm_up(o, &warmed, side[k], host[k], &pg, sf);
		if (nb > 1) {
			pg.side = "both";
			ab_progress_show(&pg, "parallel");
			ab_run_batch(o, first, side, host, nb, &pg);
		}
		idx += nb;
		for (k = 0; k < nb; k++) {
			json_t *r = ab_do_run(o, first[k], side[k], host[k], &pg);

			if (same_fail_add(&sf[side[k]], r))
				certain = side[k];
			good[k] = record(order, first[k], side[k], host[k], r, pg.tty);
			if (good[k])
				ok[side[k]]++;
			else
				failed[side[k]]++;
		}
		if (!announced && ok[0] && ok[1]) {
			if (pg.tty)
				fputc('\n', stderr);
			ab_announce_family(o, order, job, &target);
			announced = 1;
		}
		for (k = 0; k < nb; k++) {	/* a retry stays on the host of its pair */
			for (attempt = 1; !good[k] && attempt <= o->retries && certain < 0; attempt++) {
				json_t *r;

				if (!ab_run_on_disk(o, idx, side[k]))
					warm_up(o, &warmed, side[k], host[k], &pg, sf);
				r = ab_do_run(o, idx, side[k], host[k], &pg);
				if (same_fail_add(&sf[side[k]], r))
					certain = side[k];
				good[k] = record(order, idx, side[k], host[k], r, pg.tty);
				idx++;
				if (good[k])
					ok[side[k]]++;
				else
					failed[side[k]]++;
			}
		}
		if (certain >= 0) {
			if (pg.tty)
				fputc('\n', stderr);
			return error("every %s run fails the same way (%s): stopping, no run of that "
				     "side can succeed (see %s/runs)", ab_side_names[certain],
				     sf[certain].what, o->out_dir);
		}
		if (pg.tty) {
			struct cmp c;
			const struct metric *m;
			json_t *r = ab_collect(o, order, &c, NULL);

			m = primary(&c);
			if (m && !isnan(m->c.ratio))
				snprintf(pg.ratio, sizeof(pg.ratio), "%s ratio %.3f", m->name, m->c.ratio);
			json_decref(r);
			cmp_release(&c);
		}
		slot += nb;
	}
	if (pg.tty)
		fprintf(stderr, "\r\033[K");
	return 0;
}

static int load_job(const struct ab_opts *o, int side, struct job *job)
{
	char *sets[2 * AB_MAX_SETS];
	int n = ab_side_sets(o, side, sets);

	job_init(job);
	return job_open(job, o->job_path, sets, n);
}

static int ab_go(struct ab_opts *o, int resuming)
{
	json_t *order = json_array();
	struct job job[2];
	struct kernel k;
	int s, ret = 2, lock = -1;

	for (s = 0; s < 2; s++) {
		if (load_job(o, s, &job[s]) < 0) {
			if (s)
				job_release(&job[0]);
			json_decref(order);
			return 2;
		}
	}
	kernel_init(&k);
	for (s = 0; s < 2; s++) {
		char why[1024];

		if (kernel_load(o->side[s].kernel, &k) < 0) {
			struct target t;
			char *hint;

			target_init(&t);
			hint = kernel_fetch_hint(o->side[s].kernel, target_load(&t, job[s].target) == 0 ?
						 t.kernel : NULL);
			error("kernel '%s' is not in the store (kpair kernel list; kpair kernel fetch %s)",
			      o->side[s].kernel, hint);
			free(hint);
			target_release(&t);
			goto out;
		}
		/* a kernel that cannot run the job: said before the first boot, not after seven */
		if (kernel_kneeds_check(&k, &job[s], why, sizeof(why)) < 0) {
			error("%s side: %s", ab_side_names[s], why);
			kernel_release(&k);
			goto out;
		}
		kernel_release(&k);
	}
	if (!o->out_dir) {
		char stamp[32];
		time_t t = time(NULL);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		o->out_dir = xasprintf("%s/results/%s-%s-%s", kpair_root(),
				       o->calibrate ? "calibrate" : "ab", job[0].name, stamp);
	}
	if (!resuming && mkdir_p(o->out_dir, 0755) < 0) {
		ret = 3;
		goto out;
	}
	/* one kpair per A/B directory: a second ab or resume would run and move runs twice */
	lock = dir_lock(o->out_dir);
	if (lock < 0)
		goto out;
	if (!resuming) {
		char *plan = xasprintf("%s/ab.json", o->out_dir);
		int exists = path_exists(plan);

		free(plan);
		if (exists) {
			error("'%s' already holds an A/B: kpair resume %s, or choose another -o",
			      o->out_dir, o->out_dir);
			goto out;
		}
		if (ab_plan_write(o) < 0) {
			ret = 3;
			goto out;
		}
	}
	info("%s: %s vs %s, %d runs a side%s, order seed %llu -> %s", o->calibrate ? "calibrate" : "ab",
	     o->side[0].kernel, o->side[1].kernel, o->runs, o->until_ci > 0 ? " at least" : "",
	     (unsigned long long)o->seed, o->out_dir);
	ret = 3;
	if (ab_loop(o, order, &job[0]) < 0)
		goto out_finish;
	if (o->profile && ab_profile(o) < 0)
		warning("ab: the profile diff could not be written");
	ret = 0;
out_finish:
	s = ab_finish(o, order, &job[0]);
	if (!ret)
		ret = s;
out:
	if (lock >= 0)
		close(lock);
	json_decref(order);
	job_release(&job[0]);
	job_release(&job[1]);
	return ret;
}

int ab_run(struct ab_opts *o)
{
	char buf[PATH_MAX];

	if (realpath(o->job_path, buf)) {
		free(o->job_path);
		o->job_path = xstrdup(buf);
	}
	return ab_go(o, 0);
}

int ab_resume(const char *dir)
{
	struct ab_opts o;
	int ret;

	ab_opts_init(&o);
	if (ab_plan_read(dir, &o) < 0)
		return 2;
	ret = ab_go(&o, 1);
	ab_opts_release(&o);
	return ret;
}

int ab_extend(const char *dir, int runs)
{
	struct ab_opts o;
	int ret = 3;

	ab_opts_init(&o);
	if (ab_plan_read(dir, &o) < 0)
		return 2;
	if (runs > o.runs)
		o.runs = runs;
	if (ab_plan_write(&o) == 0)
		ret = ab_go(&o, 1);
	ab_opts_release(&o);
	return ret;
}

int ab_report(const char *dir)
{
	struct ab_opts o;
	json_t *order = json_array();
	struct job job;
	int idx, ret = 2;

	ab_opts_init(&o);
	if (ab_plan_read(dir, &o) < 0)
		goto out;
	job_init(&job);
	if (load_job(&o, 0, &job) < 0)
		goto out_job;
	/* every run on disk, in index order */
	for (idx = 0;; idx++) {
		int side, found = 0;

		for (side = 0; side < 2; side++) {
			char *res = xasprintf("%s/runs/%03d-%s/result.json", dir, idx, ab_side_names[side]);
			json_t *r = json_load_file(res, 0, NULL);

			free(res);
			if (!r)
				continue;
			found = 1;
			json_array_append_new(order, json_pack("{s:i, s:s, s:O, s:O, s:O, s:o}",
				"index", idx, "side", ab_side_names[side], "run_dir",
				json_object_get(r, "run_id"), "status", json_object_get(r, "status"),
				"reason", json_object_get(r, "reason"), "result", r));
		}
		if (!found)
			break;
	}
	ret = ab_finish(&o, order, &job);
out_job:
	job_release(&job);
out:
	json_decref(order);
	ab_opts_release(&o);
	return ret;
}
