/* bisect.c - binary search of a patch series for the first patch that regresses a metric */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "build.h"
#include "config.h"
#include "series.h"
#include "util.h"

enum step_result { STEP_GOOD, STEP_BAD, STEP_FAILED };

struct bisect {
	const struct bisect_opts *o;
	struct series s;
	char *ids[BUILD_MAX_PATCHES + 1];	/* kernel of each prefix, built on demand */
	char *dir, *target, *job_name;
	json_t *steps;				/* evidence, in the order the steps ran */
	int nab;				/* A/Bs this bisect needed */
};

/* the kernel of the first @k patches */
static int prefix_kernel(struct bisect *b, int k)
{
	struct build_spec spec = { .source = b->o->source, .fragment = b->o->fragment,
				   .target = b->target, .jobs = 2 };
	double t0 = mono_now();
	int i;

	if (b->ids[k])
		return 0;
	for (i = 0; i < k; i++)
		spec.patches[spec.npatches++] = b->s.patches[i];
	if (kernel_build(&spec, &b->ids[k]) < 0)
		return error("bisect: cannot build the kernel of patches 1..%d", k);
	info("bisect: patches 1..%d: %s (%.1f s)", k, b->ids[k], mono_now() - t0);
	return 0;
}

/* the A/B of base vs prefix @k, from disk when it is there; returns the exit code of ab */
static int step_ab(struct bisect *b, int k, const char *dir, int runs)
{
	char *plan = xasprintf("%s/ab.json", dir);
	struct ab_opts ab;
	int i, rc;

	if (path_exists(plan)) {
		free(plan);
		return runs ? ab_extend(dir, runs) : ab_resume(dir);
	}
	free(plan);
	ab_opts_init(&ab);
	ab.job_path = xstrdup(b->o->job_path);
	ab.side[0].kernel = xstrdup(b->ids[0]);
	ab.side[1].kernel = xstrdup(b->ids[k]);
	for (i = 0; i < b->o->nset; i++)
		ab.sets[ab.nset++] = xstrdup(b->o->sets[i]);
	ab.runs = runs ? runs : b->o->runs;
	ab.seed = b->o->seed;
	ab.threshold = b->o->threshold;
	ab.out_dir = xstrdup(dir);
	rc = ab_run(&ab);
	ab_opts_release(&ab);
	return rc;
}

/* one bisection step: is the series up to patch @k bad? */
static enum step_result step(struct bisect *b, int k)
{
	char *dir = xasprintf("%s/step-%02d", b->dir, k), *cpath = xasprintf("%s/comparison.json", dir);
	enum step_result res = STEP_FAILED;
	json_t *cmp = NULL, *m, *ev;
	const char *verdict = NULL;
	int rc, runs = 0;
	double t0 = mono_now();

	if (prefix_kernel(b, 0) < 0 || prefix_kernel(b, k) < 0)
		goto out;
	b->nab++;
	for (;;) {
		rc = step_ab(b, k, dir, runs);
		json_decref(cmp);
		cmp = json_load_file(cpath, 0, NULL);
		if (rc > 1 || !cmp) {
			error("bisect: the A/B of patches 1..%d failed (exit %d, see %s)", k, rc, dir);
			goto out;
		}
		m = json_object_get(json_object_get(cmp, "metrics"), b->o->metric);
		if (!m) {
			error("bisect: the job measured no metric '%s' (see %s)", b->o->metric, cpath);
			goto out;
		}
		verdict = json_string_value(json_object_get(m, "verdict"));
		runs = (int)json_integer_value(json_object_get(m, "n_a"));
		if (strcmp(verdict, "inconclusive") || runs >= b->o->max_runs)
			break;
		runs = runs + b->o->runs < b->o->max_runs ? runs + b->o->runs : b->o->max_runs;
		printf("bisect: step 1..%d inconclusive (%s): extending to %d runs a side\n", k,
		       json_string_value(json_object_get(m, "why")), runs);
	}
	res = !strcmp(verdict, "regressed") ? STEP_BAD : STEP_GOOD;
	ev = json_pack("{s:i, s:s, s:s, s:s, s:s, s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:s, s:f}",
		       "patches", k, "last_patch", b->s.names[k - 1], "kernel", b->ids[k],
		       "dir", dir, "verdict", verdict, "n_a", json_object_get(m, "n_a"),
		       "n_b", json_object_get(m, "n_b"), "median_a", json_object_get(m, "median_a"),
		       "median_b", json_object_get(m, "median_b"), "ratio", json_object_get(m, "ratio"),
		       "ratio_ci_low", json_object_get(m, "ratio_ci_low"),
		       "ratio_ci_high", json_object_get(m, "ratio_ci_high"),
		       "result", res == STEP_BAD ? "bad" : "good", "wall_s", mono_now() - t0);
	json_object_set(ev, "p_adjusted", json_object_get(m, "p_adjusted"));
	json_array_append_new(b->steps, ev);
	printf("bisect: step %zu: patches 1..%d (last %s): %s %.4g -> %.4g (%+.1f%%, 95%% CI "
	       "%+.1f%% to %+.1f%%), p_adjusted %.3g, n %d+%d: %s -> %s\n",
	       json_array_size(b->steps), k, b->s.names[k - 1], b->o->metric,
	       json_number_value(json_object_get(m, "median_a")),
	       json_number_value(json_object_get(m, "median_b")),
	       (json_number_value(json_object_get(m, "ratio")) - 1) * 100,
	       (json_number_value(json_object_get(m, "ratio_ci_low")) - 1) * 100,
	       (json_number_value(json_object_get(m, "ratio_ci_high")) - 1) * 100,
	       json_number_value(json_object_get(m, "p_adjusted")),
	       (int)json_integer_value(json_object_get(m, "n_a")),
	       (int)json_integer_value(json_object_get(m, "n_b")), verdict,
	       res == STEP_BAD ? "bad" : "good");
out:
	json_decref(cmp);
	free(cpath);
	free(dir);
	return res;
}

static int write_report(struct bisect *b, int first_bad, double t0)
{
	char *path = xasprintf("%s/bisect.json", b->dir);
	json_t *j;
	int ret;

	j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:O, s:i, s:f, s:f}",
		      "format", "kpair-bisect/1", "job", b->o->job_path, "source", b->o->source,
		      "series", b->s.file, "metric", b->o->metric, "base_kernel", b->ids[0],
		      "patches", b->s.n, "steps", b->steps, "ab_steps", b->nab,
		      "log2_patches", log2((double)b->s.n), "wall_s", mono_now() - t0);
	json_object_set_new(j, "first_bad", first_bad > 0 ?
			    json_pack("{s:i, s:s}", "index", first_bad, "patch",
				      b->s.names[first_bad - 1]) : json_null());
	ret = write_json_atomic(path, j);
	json_decref(j);
	free(path);
	return ret;
}

static int bisect_setup(struct bisect *b, const struct bisect_opts *o)
{
	struct job job;
	char buf[PATH_MAX];
	int ret = -1;

	memset(b, 0, sizeof(*b));
	b->o = o;
	series_init(&b->s);
	b->steps = json_array();
	if (series_load(&b->s, o->series) < 0)
		return -1;
	job_init(&job);
	if (job_load(&job, o->job_path, o->sets, o->nset) < 0)
		goto out;
	b->target = xstrdup(o->target ? o->target : job.target);
	b->job_name = xstrdup(job.name);
	if (o->out_dir) {
		b->dir = xstrdup(o->out_dir);
	} else {
		char *sd = xstrdup(realpath(o->series, buf) ? buf : o->series), *slash;

		slash = strrchr(sd, '/');
		if (slash)
			*slash = '\0';
		slash = strrchr(sd, '/');
		b->dir = xasprintf("%s/results/bisect-%s-%s-%s", kpair_root(), job.name, o->metric,
				   slash ? slash + 1 : sd);
		free(sd);
	}
	if (mkdir_p(b->dir, 0755) == 0)
		ret = 0;
out:
	job_release(&job);
	return ret;
}

static void bisect_release(struct bisect *b)
{
	int i;

	for (i = 0; i <= BUILD_MAX_PATCHES; i++)
		free(b->ids[i]);
	series_release(&b->s);
	json_decref(b->steps);
	free(b->dir);
	free(b->target);
	free(b->job_name);
}

int bisect_run(const struct bisect_opts *o)
{
	struct bisect b;
	double t0 = mono_now();
	int lo = 0, hi, mid, ret = 3;
	enum step_result r;

	if (bisect_setup(&b, o) < 0) {
		bisect_release(&b);
		return 2;
	}
	hi = b.s.n;
	printf("bisect: %d patches in %s, metric %s, %d runs a side (up to %d) -> %s\n", b.s.n,
	       b.s.file, o->metric, o->runs, o->max_runs, b.dir);
	/* the whole series first: nothing to look for unless it regresses */
	r = step(&b, hi);
	if (r == STEP_FAILED)
		goto out;
	if (r == STEP_GOOD) {
		printf("bisect: the whole series does not regress %s: no first bad patch\n", o->metric);
		write_report(&b, 0, t0);
		ret = 1;
		goto out;
	}
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		r = step(&b, mid);
		if (r == STEP_FAILED)
			goto out;
		if (r == STEP_BAD)
			hi = mid;
		else
			lo = mid;
	}
	printf("bisect: first bad patch: %s (%d of %d), %d A/B steps for %d patches (log2 %.1f), "
	       "%.0f s\n", b.s.names[hi - 1], hi, b.s.n, b.nab, b.s.n, log2((double)b.s.n),
	       mono_now() - t0);
	ret = write_report(&b, hi, t0) < 0 ? 3 : 0;
out:
	bisect_release(&b);
	return ret;
}
