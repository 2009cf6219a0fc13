/*
 * bisect.c - the first patch of a series (commit of a range) that regresses a
 * metric: the points, their kernels, each step's A/B on disk, the report; the
 * search itself (sized, three-valued steps, the boundary retest) is
 * bisect-search.c
 */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect-search.h"
#include "bisect.h"
#include "compare.h"
#include "config.h"
#include "job.h"
#include "kernels/build.h"
#include "kernels/gitsrc.h"
#include "kernels/kneeds.h"
#include "series.h"
#include "util.h"

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
	char *needs;				/* the job's kernel needs, forced on the builds */
	json_t *steps;				/* evidence, in the order the steps ran */
	struct bisect_search search;
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
				   .target = b->target, .jobs = 2, .needs = b->needs };
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

/* the A/B of point @i against point @k, from disk when it is there; the exit code of ab */
static int step_ab(struct bisect *b, int i, int k, const char *dir, int runs)
{
	char *plan = xasprintf("%s/ab.json", dir);
	struct ab_opts ab;
	int n, rc;

	if (path_exists(plan)) {
		free(plan);
		return ab_extend(dir, runs);
	}
	free(plan);
	ab_opts_init(&ab);
	ab.job_path = xstrdup(b->o->job_path);
	ab.side[0].kernel = xstrdup(b->ids[i]);
	ab.side[1].kernel = xstrdup(b->ids[k]);
	for (n = 0; n < b->o->nset; n++)
		ab.sets[ab.nset++] = xstrdup(b->o->sets[n]);
	ab.runs = runs;
	ab.runs_given = 1;
	ab.metric = xstrdup(b->o->metric);	/* the bisect's metric is each A/B's primary */
	ab.seed = b->o->seed;
	ab.threshold = b->o->threshold;
	ab.out_dir = xstrdup(dir);
	rc = ab_run(&ab);
	ab_opts_release(&ab);
	return rc;
}

/* "patches 1..k", "commit <sha12>", or for the retest "patches 1..3 against patches 1..2" */
static char *pair_label(const struct bisect *b, int i, int k)
{
	char *lk = point_label(b, k), *li, *l;

	if (!i)
		return lk;
	li = point_label(b, i);
	l = xasprintf("%s against %s", lk, li);
	free(li);
	free(lk);
	return l;
}

/* the index in b->steps of the A/B of point @i against point @k, or -1 */
static int step_index(const struct bisect *b, int i, int k)
{
	json_t *e;
	size_t n;

	json_array_foreach(b->steps, n, e)
		if (json_integer_value(json_object_get(e, "base")) == i &&
		    json_integer_value(json_object_get(e, "patches")) == k)
			return (int)n;
	return -1;
}

/*
 * One A/B's evidence: printed, and kept for bisect.json, one entry an A/B (an
 * A/B given more runs keeps its number and its entry is brought up to date)
 */
static void step_evidence(struct bisect *b, int i, int k, const char *dir, json_t *m,
			  const struct comparison *c, double t0)
{
	const struct bisect_search *s = &b->search;
	int ends = !i && k == b->n, at = step_index(b, i, k);
	const char *result;
	char *label = point_label(b, k), *against = i ? point_label(b, i) : NULL;
	json_t *ev;

	/* the ends regress or not; a step is good, bad or unresolved against them */
	if (ends)
		result = c->verdict == V_REGRESSED || c->verdict == V_REGRESSED_SMALL ? "bad" :
			 c->verdict == V_INCONCLUSIVE ? "unresolved" : "good";
	else
		result = step_class_names[bisect_classify(c, s->effect, s->effect_se, s->higher,
							  NULL)];
	ev = json_pack("{s:i, s:i, s:s, s:s, s:s, s:s, s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:s, s:f}",
		       "patches", k, "base", i, b->shas ? "commit" : "last_patch",
		       b->shas ? b->shas[k] : b->names[k - 1], "kernel", b->ids[k],
		       "dir", dir, "verdict", verdict_names[c->verdict], "n_a", json_object_get(m, "n_a"),
		       "n_b", json_object_get(m, "n_b"), "median_a", json_object_get(m, "median_a"),
		       "median_b", json_object_get(m, "median_b"), "ratio", json_object_get(m, "ratio"),
		       "ratio_ci_low", json_object_get(m, "ratio_ci_low"),
		       "ratio_ci_high", json_object_get(m, "ratio_ci_high"),
		       "result", result, "wall_s", mono_now() - t0);
	json_object_set(ev, "p_adjusted", json_object_get(m, "p_adjusted"));
	if (b->shas)
		json_object_set_new(ev, "subject", json_string(b->names[k - 1]));
	if (at < 0) {
		json_array_append_new(b->steps, ev);
		at = (int)json_array_size(b->steps) - 1;
	} else {
		json_array_set_new(b->steps, at, ev);
	}
	printf("bisect: step %d: %s (%s %s)%s%s: %s %.4g -> %.4g (%+.1f%%, 95%% CI "
	       "%+.1f%% to %+.1f%%), p_adjusted %.3g, n %zu+%zu: %s -> %s\n",
	       at + 1, label, b->shas ? "subject" : "last", b->names[k - 1],
	       against ? " against " : "", against ? against : "", b->o->metric, c->a.median,
	       c->b.median, (c->ratio - 1) * 100, (c->ratio_lo - 1) * 100, (c->ratio_hi - 1) * 100,
	       c->p_adj, c->a.n, c->b.n, verdict_names[c->verdict], result);
	free(against);
	free(label);
}

/* bisect_search's measure: the A/B of point @i against point @k with @runs a side */
static int measure(void *ctx, int i, int k, int runs, struct comparison *c)
{
	struct bisect *b = ctx;
	char *dir = i ? xasprintf("%s/step-%02d-%02d", b->dir, i, k) :
		    xasprintf("%s/step-%02d", b->dir, k);
	char *cpath = xasprintf("%s/comparison.json", dir), *label = pair_label(b, i, k);
	json_t *cmp = NULL, *m;
	double t0 = mono_now();
	int rc, ret = -1;

	if (prefix_kernel(b, i) < 0 || prefix_kernel(b, k) < 0)
		goto out;
	rc = step_ab(b, i, k, dir, runs);
	cmp = json_load_file(cpath, 0, NULL);
	/* exit 3 with a comparison whose outcome is "failures": the patched guest failed runs */
	if (!cmp || (rc > 1 && !(rc == 3 && outcome_of_json(cmp) == OUTCOME_FAILURES))) {
		error("bisect: the A/B of %s failed (exit %d, see %s)", label, rc, dir);
		goto out;
	}
	m = json_object_get(json_object_get(cmp, "metrics"), b->o->metric);
	if (!m || comparison_from_json(m, c) < 0) {
		error("bisect: the job measured no metric '%s' (see %s)", b->o->metric, cpath);
		goto out;
	}
	b->search.higher = !strcmp(jget_str(m, "better"), "higher");
	step_evidence(b, i, k, dir, m, c, t0);
	ret = 0;
out:
	json_decref(cmp);
	free(label);
	free(cpath);
	free(dir);
	return ret;
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
		if (first_bad > 0) {
			char *who = gitsrc_show(&b->git, b->shas[first_bad], "%an <%ae>");

			fb = json_pack("{s:i, s:s, s:s, s:s}", "index", first_bad, "commit",
				       b->shas[first_bad], "subject", b->names[first_bad - 1],
				       "author", who ? who : "");
			free(who);
		}
	} else {
		json_object_set_new(j, "series", json_string(b->s.file));
		if (first_bad > 0)
			fb = json_pack("{s:i, s:s}", "index", first_bad, "patch",
				       b->names[first_bad - 1]);
	}
	json_object_set_new(j, "first_bad", fb);
	json_object_set_new(j, "search", json_pack("{s:s, s:s, s:o, s:o, s:o, s:i, s:i, s:i, s:i}",
		"end", bisect_end_names[b->search.end], "why", b->search.why,
		"effect", jreal(expm1(b->search.effect)), "effect_se", jreal(b->search.effect_se),
		"sd", jreal(b->search.sd), "step_runs", b->search.step_runs,
		"max_runs", b->o->max_runs, "interval_low", b->search.lo + 1,
		"interval_high", b->search.hi));
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
	if (job_open(&job, o->job_path, o->sets, o->nset) < 0)
		goto out;
	b->target = xstrdup(o->target ? o->target : job.target);
	if (o->config && build_config_fits(o->config, b->target) < 0)
		goto out;
	b->job_name = xstrdup(job.name);
	b->needs = kneeds_fragment(&job);
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
	free(b->needs);
}

int bisect_run(const struct bisect_opts *o)
{
	struct bisect b;
	struct bisect_search *s = &b.search;
	double t0 = mono_now();
	int ret = 3;

	if (bisect_setup(&b, o) < 0) {
		bisect_release(&b);
		return 2;
	}
	if (b.shas)
		printf("bisect: %d commits in %.12s..%.12s of %s, metric %s, %d runs a side (up to "
		       "%d) -> %s\n", b.n, b.shas[0], b.shas[b.n], b.git.dir, o->metric, o->runs,
		       o->max_runs, b.dir);
	else
		printf("bisect: %d patches in %s, metric %s, %d runs a side (up to %d) -> %s\n",
		       b.n, b.s.file, o->metric, o->runs, o->max_runs, b.dir);
	*s = (struct bisect_search){ .n = b.n, .threshold = o->threshold, .runs = o->runs,
				     .max_runs = o->max_runs, .verbose = 1, .measure = measure,
				     .ctx = &b };
	bisect_search_run(s);
	switch (s->end) {
	case BISECT_FOUND:
		if (b.shas)
			printf("bisect: first bad commit: %.12s %s (%d of %d), %d A/B steps for %d "
			       "commits (log2 %.1f), %.0f s\n", b.shas[s->first_bad],
			       b.names[s->first_bad - 1], s->first_bad, b.n, s->measures, b.n,
			       log2((double)b.n), mono_now() - t0);
		else
			printf("bisect: first bad patch: %s (%d of %d), %d A/B steps for %d patches "
			       "(log2 %.1f), %.0f s\n", b.names[s->first_bad - 1], s->first_bad, b.n,
			       s->measures, b.n, log2((double)b.n), mono_now() - t0);
		ret = 0;
		break;
	case BISECT_NO_REGRESSION:
		printf("bisect: the whole %s does not regress %s: no first bad %s (%s)\n",
		       b.shas ? "range" : "series", o->metric, b.shas ? "commit" : "patch", s->why);
		ret = 1;
		break;
	case BISECT_UNRESOLVED:
	case BISECT_INFEASIBLE:
		printf("bisect: %s: %s\n", s->end == BISECT_INFEASIBLE ? "refused" : "unresolved",
		       s->why);
		ret = 4;
		break;
	case BISECT_FAILED:
		error("bisect: %s", s->why);
		ret = 3;
		break;
	}
	b.nab = s->measures;
	if (s->end != BISECT_FAILED && write_report(&b, s->end == BISECT_FOUND ? s->first_bad : 0,
						    t0) < 0)
		ret = 3;
	bisect_release(&b);
	return ret;
}
