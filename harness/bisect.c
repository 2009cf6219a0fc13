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
#include "gitsrc.h"
#include "series.h"
#include "util.h"

enum step_result { STEP_GOOD, STEP_BAD, STEP_FAILED };

/*
 * The points searched: 0 is the base, 1..n the series' prefixes or the
 * commits of good..bad, oldest first. Kernels are built on demand.
 */
struct bisect {
	const struct bisect_opts *o;
	struct series s;
	struct gitsrc git;
	int n;
	char **names;				/* of points 1..n (names[k - 1]) */
	char **shas;				/* git: commits of points 0..n */
	char **ids;				/* kernel of each point, built on demand */
	char *dir, *target, *job_name;
	json_t *steps;				/* evidence, in the order the steps ran */
	int nab;				/* A/Bs this bisect needed */
};

/* "patches 1..k" or "commit <sha12>", for messages */
static char *point_label(const struct bisect *b, int k)
{
	if (b->shas)
		return xasprintf("commit %.12s", b->shas[k]);
	return xasprintf("patches 1..%d", k);
}

/* the kernel of point @k */
static int prefix_kernel(struct bisect *b, int k)
{
	struct build_spec spec = { .source = b->o->source, .fragment = b->o->fragment,
				   .target = b->target, .jobs = 2 };
	double t0 = mono_now();
	char *label;
	int i;

	if (b->ids[k])
		return 0;
	if (b->shas) {
		spec.git = &b->git;
		spec.sha = spec.rev = b->shas[k];
		spec.config = b->o->config;
	}
	for (i = 0; !b->shas && i < k; i++)
		spec.patches[spec.npatches++] = b->s.patches[i];
	label = point_label(b, k);
	if (kernel_build(&spec, &b->ids[k]) < 0) {
		error("bisect: cannot build the kernel of %s", label);
		free(label);
		return -1;
	}
	info("bisect: %s: %s (%.1f s)", label, b->ids[k], mono_now() - t0);
	free(label);
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
	char *label = point_label(b, k);

	if (prefix_kernel(b, 0) < 0 || prefix_kernel(b, k) < 0)
		goto out;
	b->nab++;
	for (;;) {
		rc = step_ab(b, k, dir, runs);
		json_decref(cmp);
		cmp = json_load_file(cpath, 0, NULL);
		if (rc > 1 || !cmp) {
			error("bisect: the A/B of %s failed (exit %d, see %s)", label, rc, dir);
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
		printf("bisect: step %s inconclusive (%s): extending to %d runs a side\n", label,
		       json_string_value(json_object_get(m, "why")), runs);
	}
	res = !strcmp(verdict, "regressed") ? STEP_BAD : STEP_GOOD;
	ev = json_pack("{s:i, s:s, s:s, s:s, s:s, s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:s, s:f}",
		       "patches", k, b->shas ? "commit" : "last_patch", b->shas ? b->shas[k] :
		       b->names[k - 1], "kernel", b->ids[k],
		       "dir", dir, "verdict", verdict, "n_a", json_object_get(m, "n_a"),
		       "n_b", json_object_get(m, "n_b"), "median_a", json_object_get(m, "median_a"),
		       "median_b", json_object_get(m, "median_b"), "ratio", json_object_get(m, "ratio"),
		       "ratio_ci_low", json_object_get(m, "ratio_ci_low"),
		       "ratio_ci_high", json_object_get(m, "ratio_ci_high"),
		       "result", res == STEP_BAD ? "bad" : "good", "wall_s", mono_now() - t0);
	json_object_set(ev, "p_adjusted", json_object_get(m, "p_adjusted"));
	if (b->shas)
		json_object_set_new(ev, "subject", json_string(b->names[k - 1]));
	json_array_append_new(b->steps, ev);
	printf("bisect: step %zu: %s (%s %s): %s %.4g -> %.4g (%+.1f%%, 95%% CI "
	       "%+.1f%% to %+.1f%%), p_adjusted %.3g, n %d+%d: %s -> %s\n",
	       json_array_size(b->steps), label, b->shas ? "subject" : "last",
	       b->names[k - 1], b->o->metric,
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
	free(label);
	free(cpath);
	free(dir);
	return res;
}

static int write_report(struct bisect *b, int first_bad, double t0)
{
	char *path = xasprintf("%s/bisect.json", b->dir);
	json_t *j, *fb = json_null();
	int ret;

	j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:O, s:i, s:f, s:f}",
		      "format", "kpair-bisect/1", "job", b->o->job_path, "source", b->o->source,
		      "metric", b->o->metric, "base_kernel", b->ids[0],
		      "patches", b->n, "steps", b->steps, "ab_steps", b->nab,
		      "log2_patches", log2((double)b->n), "wall_s", mono_now() - t0);
	if (b->shas) {
		json_object_set_new(j, "git", json_pack("{s:s, s:s, s:s, s:s, s:i}", "good",
				    b->o->good, "good_commit", b->shas[0], "bad", b->o->bad,
				    "bad_commit", b->shas[b->n], "commits", b->n));
		if (first_bad > 0)
			fb = json_pack("{s:i, s:s, s:s}", "index", first_bad, "commit",
				       b->shas[first_bad], "subject", b->names[first_bad - 1]);
	} else {
		json_object_set_new(j, "series", json_string(b->s.file));
		if (first_bad > 0)
			fb = json_pack("{s:i, s:s}", "index", first_bad, "patch",
				       b->names[first_bad - 1]);
	}
	json_object_set_new(j, "first_bad", fb);
	ret = write_json_atomic(path, j);
	json_decref(j);
	free(path);
	return ret;
}

/* the points of a git range: good, then good..bad's commits with their subjects */
static int git_points(struct bisect *b, const struct bisect_opts *o)
{
	char *good = NULL, *bad = NULL, **range = NULL;
	int i, n = 0, ret = -1;

	if (gitsrc_open(&b->git, o->source) < 0 || gitsrc_resolve(&b->git, o->good, &good) < 0 ||
	    gitsrc_resolve(&b->git, o->bad, &bad) < 0 ||
	    gitsrc_range(&b->git, good, bad, &range, &n) < 0)
		goto out;
	b->n = n;
	b->shas = xcalloc(n + 1, sizeof(*b->shas));
	b->names = xcalloc(n, sizeof(*b->names));
	b->shas[0] = good;
	good = NULL;
	for (i = 0; i < n; i++) {
		char *subj = gitsrc_show(&b->git, range[i], "%s");

		b->shas[i + 1] = range[i];
		b->names[i] = subj ? subj : xstrdup("");
	}
	ret = 0;
out:
	free(range);
	free(good);
	free(bad);
	return ret;
}

static int bisect_setup(struct bisect *b, const struct bisect_opts *o)
{
	struct job job;
	char buf[PATH_MAX];
	int i, ret = -1;

	memset(b, 0, sizeof(*b));
	b->o = o;
	series_init(&b->s);
	gitsrc_init(&b->git);
	b->steps = json_array();
	if (o->good) {
		if (git_points(b, o) < 0)
			return -1;
	} else {
		if (series_load(&b->s, o->series) < 0)
			return -1;
		b->n = b->s.n;
		b->names = xcalloc(b->n, sizeof(*b->names));
		for (i = 0; i < b->n; i++)
			b->names[i] = xstrdup(b->s.names[i]);
	}
	b->ids = xcalloc(b->n + 1, sizeof(*b->ids));
	job_init(&job);
	if (job_load(&job, o->job_path, o->sets, o->nset) < 0)
		goto out;
	b->target = xstrdup(o->target ? o->target : job.target);
	if (o->config && build_config_fits(o->config, b->target) < 0)
		goto out;
	b->job_name = xstrdup(job.name);
	if (o->out_dir) {
		b->dir = xstrdup(o->out_dir);
	} else if (b->shas) {
		b->dir = xasprintf("%s/results/bisect-%s-%s-%.12s-%.12s", kpair_root(), job.name,
				   o->metric, b->shas[0], b->shas[b->n]);
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

	for (i = 0; b->ids && i <= b->n; i++)
		free(b->ids[i]);
	for (i = 0; b->shas && i <= b->n; i++)
		free(b->shas[i]);
	for (i = 0; b->names && i < b->n; i++)
		free(b->names[i]);
	free(b->ids);
	free(b->shas);
	free(b->names);
	series_release(&b->s);
	gitsrc_release(&b->git);
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
	hi = b.n;
	if (b.shas)
		printf("bisect: %d commits in %.12s..%.12s of %s, metric %s, %d runs a side (up to "
		       "%d) -> %s\n", b.n, b.shas[0], b.shas[b.n], b.git.dir, o->metric, o->runs,
		       o->max_runs, b.dir);
	else
		printf("bisect: %d patches in %s, metric %s, %d runs a side (up to %d) -> %s\n",
		       b.n, b.s.file, o->metric, o->runs, o->max_runs, b.dir);
	/* the whole series first: nothing to look for unless it regresses */
	r = step(&b, hi);
	if (r == STEP_FAILED)
		goto out;
	if (r == STEP_GOOD) {
		printf("bisect: the whole %s does not regress %s: no first bad %s\n",
		       b.shas ? "range" : "series", o->metric, b.shas ? "commit" : "patch");
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
	if (b.shas)
		printf("bisect: first bad commit: %.12s %s (%d of %d), %d A/B steps for %d commits "
		       "(log2 %.1f), %.0f s\n", b.shas[hi], b.names[hi - 1], hi, b.n, b.nab, b.n,
		       log2((double)b.n), mono_now() - t0);
	else
		printf("bisect: first bad patch: %s (%d of %d), %d A/B steps for %d patches "
		       "(log2 %.1f), %.0f s\n", b.names[hi - 1], hi, b.n, b.nab, b.n,
		       log2((double)b.n), mono_now() - t0);
	ret = write_report(&b, hi, t0) < 0 ? 3 : 0;
out:
	bisect_release(&b);
	return ret;
}
