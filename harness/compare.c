/* compare.c - per-metric samples of two sides, the family rule, failed runs, claim, table */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/vm.h"
#include "compare.h"
#include "counters-cmp.h"
#include "util.h"

const char *const failure_names[] = { "none", "chance", "more", "unexplained", "fewer" };
const char *const outcome_names[] = { "pass", "regressed", "failures" };
const char *const primary_source_names[] = { "none", "claim", "job", "--metric" };

void cmp_init(struct cmp *c, double threshold)
{
	memset(c, 0, sizeof(*c));
	c->threshold = threshold;
	c->primary = -1;
	c->claim.tolerance = 0.5;
}

void cmp_release(struct cmp *c)
{
	int i;

	for (i = 0; i < c->n; i++) {
		free(c->m[i].name);
		free(c->m[i].unit);
		free(c->m[i].a);
		free(c->m[i].b);
		json_decref(c->m[i].all_a);
		json_decref(c->m[i].all_b);
	}
	json_decref(c->ctr_runs[0]);
	json_decref(c->ctr_runs[1]);
	json_decref(c->counters);
	free(c->primary_name);
	free(c->claim.metric);
	free(c->claim.source);
	free(c->claim.note);
	cmp_init(c, 0);
}

enum better unit_better(const char *unit)
{
	static const char *const lower[] = { "s", "ms", "us", "ns", "min", NULL };
	static const char *const higher[] = { "B/s", "KB/s", "KiB/s", "MB/s", "MiB/s", "GB/s",
					      "iops", "ops/s", "files/s", NULL };
	int i;

	for (i = 0; lower[i]; i++)
		if (!strcmp(unit, lower[i]))
			return BETTER_LOWER;
	for (i = 0; higher[i]; i++)
		if (!strcmp(unit, higher[i]))
			return BETTER_HIGHER;
	return BETTER_NONE;
}

static struct metric *metric_get(struct cmp *c, const char *name, const char *unit)
{
	struct metric *m;
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->m[i].name, name))
			return &c->m[i];
	if (c->n >= CMP_MAX_METRICS) {
		error("more than %d metrics: '%s' left out", CMP_MAX_METRICS, name);
		return NULL;
	}
	m = &c->m[c->n++];
	memset(m, 0, sizeof(*m));
	m->name = xstrdup(name);
	m->unit = xstrdup(unit);
	m->better = unit_better(unit);
	m->all_a = json_array();
	m->all_b = json_array();
	return m;
}

static void push(double **v, size_t *n, double x)
{
	double *nv = realloc(*v, (*n + 1) * sizeof(double));

	if (!nv)
		abort();
	nv[(*n)++] = x;
	*v = nv;
}

static double json_median(json_t *values)
{
	size_t n = json_array_size(values), i;
	double *v = xcalloc(n, sizeof(double));
	struct summary s;

	for (i = 0; i < n; i++)
		v[i] = json_number_value(json_array_get(values, i));
	summarize(v, n, &s);
	free(v);
	return s.median;
}

int cmp_add_result(struct cmp *c, int side, json_t *result)
{
	const char *status = json_string_value(json_object_get(result, "status"));
	json_t *samples = json_object_get(result, "samples"), *m;
	const char *name;

	if (!status || strcmp(status, "ok")) {
		if (!c->first_fail[side][0])
			snprintf(c->first_fail[side], sizeof(c->first_fail[side]), "%s: %s",
				 status ? status : "?", json_string_value(json_object_get(result,
				 "reason")) ?: "");
		if (side) {
			c->failed_b++;
			c->guest_failed_b += run_status_is_guest(status);
		} else {
			c->failed_a++;
			c->guest_failed_a += run_status_is_guest(status);
		}
		return 0;
	}
	if (side)
		c->ok_b++;
	else
		c->ok_a++;
	if (json_is_object(json_object_get(result, "counters"))) {	/* a family of their own */
		if (!c->ctr_runs[side])
			c->ctr_runs[side] = json_array();
		json_array_append(c->ctr_runs[side], json_object_get(result, "counters"));
	}
	json_object_foreach(samples, name, m) {
		json_t *values = json_object_get(m, "values");
		const char *unit = json_string_value(json_object_get(m, "unit"));
		struct metric *mt = metric_get(c, name, unit ? unit : "");

		if (!mt || !json_array_size(values))
			continue;
		if (json_is_string(json_object_get(m, "better")))	/* the workload said it */
			mt->better = strcmp(json_string_value(json_object_get(m, "better")), "higher") ?
				     BETTER_LOWER : BETTER_HIGHER;
		if (json_array_size(values) > 1)
			mt->per_op = 1;
		json_array_append(side ? mt->all_b : mt->all_a, values);
		if (side)
			push(&mt->b, &mt->nb, json_median(values));
		else
			push(&mt->a, &mt->na, json_median(values));
	}
	return 0;
}

int cmp_add_values(struct cmp *c, int side, const char *metric, const char *unit,
		   enum better better, const double *v, size_t n)
{
	struct metric *m = metric_get(c, metric, unit);
	size_t i;

	if (!m)
		return -1;
	m->better = better;
	if (side)
		c->ok_b = n > (size_t)c->ok_b ? (int)n : c->ok_b;
	else
		c->ok_a = n > (size_t)c->ok_a ? (int)n : c->ok_a;
	for (i = 0; i < n; i++) {
		json_array_append_new(side ? m->all_b : m->all_a, json_pack("[f]", v[i]));
		if (side)
			push(&m->b, &m->nb, v[i]);
		else
			push(&m->a, &m->na, v[i]);
	}
	return 0;
}

/* median of space-separated numbers, NaN if none */
static double median_text(const char *s)
{
	double v[64];
	size_t n = 0;
	char *end;
	struct summary sm;

	while (s && *s && n < 64) {
		double x = strtod(s, &end);

		if (end == s)
			break;
		v[n++] = x;
		s = end;
	}
	summarize(v, n, &sm);
	return sm.median;
}

void cmp_set_primary(struct cmp *c, const char *metric, enum primary_source source)
{
	if (!metric || !*metric)
		return;
	free(c->primary_name);
	c->primary_name = xstrdup(metric);
	c->primary_source = source;
}

void cmp_set_claim(struct cmp *c, const char *metric, const char *better, const char *stock,
		   const char *patched, const char *change, const char *source, const char *note)
{
	struct claim *cl = &c->claim;
	char *end;

	if (!metric || !*metric)
		return;
	cl->present = 1;
	cl->metric = xstrdup(metric);
	cl->source = xstrdup(source);
	cl->note = xstrdup(note);
	cl->better = better && !strcmp(better, "higher") ? BETTER_HIGHER : BETTER_LOWER;
	cl->stock = median_text(stock);
	cl->patched = median_text(patched);
	cl->change = NAN;
	if (change && *change) {
		cl->change = strtod(change, &end) / (strchr(change, '%') ? 100.0 : 1.0);
		if (end == change)
			cl->change = NAN;
	}
	if (isnan(cl->change) && !isnan(cl->stock) && !isnan(cl->patched) && cl->stock != 0)
		cl->change = cl->patched / cl->stock - 1;
}

static void claim_compute(struct cmp *c)
{
	struct claim *cl = &c->claim;
	const struct metric *m = NULL;
	int i;

	if (!cl->present)
		return;
	for (i = 0; i < c->n; i++)
		if (!strcmp(c->m[i].name, cl->metric))
			m = &c->m[i];
	cl->result = CLAIM_INCONCLUSIVE;
	if (!m) {
		snprintf(cl->why, sizeof(cl->why), "metric '%s' was not measured", cl->metric);
		return;
	}
	if (isnan(cl->change)) {
		snprintf(cl->why, sizeof(cl->why), "the claim gives no published change");
		return;
	}
	cl->result = claim_check(1 + cl->change, m->c.ratio_lo, m->c.ratio_hi, cl->tolerance);
	snprintf(cl->why, sizeof(cl->why),
		 "published %+.1f%%; measured %+.1f%% (95%% CI %+.1f%% to %+.1f%%), n %zu vs %zu; "
		 "reproduced needs the CI on the published side reaching %+.1f%%",
		 cl->change * 100, (m->c.ratio - 1) * 100, (m->c.ratio_lo - 1) * 100,
		 (m->c.ratio_hi - 1) * 100, m->na, m->nb, (1 - cl->tolerance) * cl->change * 100);
}

/* the primary metric (named, else the claim's) when it is a performance metric; else -1 */
static int primary_index(struct cmp *c)
{
	const char *name = c->primary_name ? c->primary_name :
			   c->claim.present ? c->claim.metric : NULL;
	int i;

	if (!c->primary_name && c->claim.present)
		c->primary_source = PRIMARY_CLAIM;
	for (i = 0; name && i < c->n; i++)
		if (!strcmp(c->m[i].name, name))
			return c->m[i].better == BETTER_NONE ? -1 : i;
	return -1;
}

double cmp_alone_level(const struct cmp *c, int i)
{
	return i == c->primary || c->secondaries <= 1 ? STATS_ALPHA : STATS_ALPHA / c->secondaries;
}

/*
 * Failed runs: a side that fails more often is a finding, not noise to drop.
 * Fisher's exact test asks whether the patched side fails more (or less) often
 * than chance allows; a guest failure (panic, hang, workload error) on the
 * patched side when the stock side had none is not something the host
 * explains, and blocks a pass even when the counts are too small to test.
 */
static void failures_compute(struct cmp *c)
{
	struct failures *f = &c->fail;
	long na = c->ok_a + c->failed_a, nb = c->ok_b + c->failed_b;
	char p[48] = "";

	f->p_more = f->p_fewer = NAN;
	f->kind = FAIL_NONE;
	snprintf(f->why, sizeof(f->why), "no run failed");
	if (!c->failed_a && !c->failed_b)
		return;
	f->p_more = fisher_exact_p(c->failed_a, na, c->failed_b, nb, 1);
	f->p_fewer = fisher_exact_p(c->failed_b, nb, c->failed_a, na, 1);
	if (f->p_more < STATS_ALPHA) {
		f->kind = FAIL_MORE;
		snprintf(f->why, sizeof(f->why), "patched fails more often: %d of %ld runs against "
			 "%d of %ld (Fisher's exact test, p %.3g)", c->failed_b, nb, c->failed_a, na,
			 f->p_more);
	} else if (c->guest_failed_b && !c->guest_failed_a) {
		f->kind = FAIL_UNEXPLAINED;
		if (!isnan(f->p_more))
			snprintf(p, sizeof(p), " (Fisher's p %.3g)", f->p_more);
		snprintf(f->why, sizeof(f->why), "the patched guest failed %d of %ld runs itself "
			 "(panic, hang or workload error), the stock guest never: too few runs to call "
			 "it chance%s, so it blocks a pass", c->guest_failed_b, nb, p);
	} else if (f->p_fewer < STATS_ALPHA) {
		f->kind = FAIL_FEWER;
		snprintf(f->why, sizeof(f->why), "patched fails less often: %d of %ld runs against "
			 "%d of %ld (Fisher's exact test, p %.3g)", c->failed_b, nb, c->failed_a, na,
			 f->p_fewer);
	} else {
		f->kind = FAIL_CHANCE;
		snprintf(f->why, sizeof(f->why), "%d of %ld stock and %d of %ld patched runs failed: "
			 "as likely on either side (Fisher's p %.3g)%s", c->failed_a, na, c->failed_b, nb,
			 f->p_more, c->guest_failed_a + c->guest_failed_b ? "" :
			 ", and the host's failures, not the guests'");
	}
}

/*
 * Two families: the primary metric, named before any run (--metric, the job's
 * compare.metric, else its claim's), is tested on its own at alpha; every
 * other performance metric is a secondary one, and Benjamini-Hochberg keeps
 * the expected share of false verdicts among the secondaries' at alpha: in an
 * A/A, where any verdict is false, the chance of one. Holm's stricter rule
 * (no false verdict at all, whatever moved) multiplies the smallest p by m,
 * and at 5 runs a side no rank p survives that past 6 metrics.
 */
void cmp_compute(struct cmp *c)
{
	double p[CMP_MAX_METRICS], adj[CMP_MAX_METRICS];
	int i;

	c->primary = primary_index(c);
	c->secondaries = 0;
	for (i = 0; i < c->n; i++) {
		struct metric *m = &c->m[i];

		compare_samples(m->a, m->na, m->b, m->nb, &m->c);
		/* only performance metrics enter the family: sizes and counts are facts */
		p[i] = m->better == BETTER_NONE || i == c->primary ? NAN : m->c.p;
		c->secondaries += !isnan(p[i]);
	}
	bh_adjust(p, c->n, adj);
	if (c->primary >= 0)
		adj[c->primary] = c->m[c->primary].c.p;
	for (i = 0; i < c->n; i++) {
		struct metric *m = &c->m[i];

		m->c.p_adj = adj[i];
		if (m->better == BETTER_NONE) {
			m->c.verdict = V_INCONCLUSIVE;
			snprintf(m->c.why, sizeof(m->c.why), "not a performance metric (unit '%s')",
				 m->unit);
			continue;
		}
		decide(&m->c, m->better == BETTER_HIGHER, c->threshold, cmp_alone_level(c, i));
	}
	failures_compute(c);
	claim_compute(c);
	json_decref(c->counters);
	c->counters = c->ctr_runs[0] && c->ctr_runs[1] ?
		      counters_compare(c->ctr_runs[0], c->ctr_runs[1]) : NULL;
}

enum outcome cmp_outcome(const struct cmp *c)
{
	int i;

	if (c->fail.kind == FAIL_MORE)
		return OUTCOME_REGRESSED;
	for (i = 0; i < c->n; i++)
		if (c->m[i].better != BETTER_NONE && c->m[i].c.verdict == V_REGRESSED)
			return OUTCOME_REGRESSED;
	return c->fail.kind == FAIL_UNEXPLAINED ? OUTCOME_FAILURES : OUTCOME_PASS;
}

int outcome_exit(enum outcome o)
{
	return o == OUTCOME_REGRESSED ? 1 : o == OUTCOME_FAILURES ? 3 : 0;
}

enum outcome outcome_of_json(json_t *cmp)
{
	const char *s = json_string_value(json_object_get(cmp, "outcome"));
	int i;

	for (i = 0; s && i <= OUTCOME_FAILURES; i++)
		if (!strcmp(s, outcome_names[i]))
			return i;
	return OUTCOME_PASS;
}

int cmp_runs_needed(const struct cmp *c, int i, double delta)
{
	const struct metric *m = &c->m[i];
	double sd = m->c.scale == SCALE_RATIO ? m->c.sd : m->c.sd / fabs(m->c.a.median);

	if (m->c.a.n < 2 || m->c.b.n < 2 || isnan(sd) || isinf(sd))
		return -1;
	return runs_for_change(sd, log1p(delta), cmp_alone_level(c, i), VERDICT_POWER);
}

int read_samples_file(const char *path, double **v, size_t *n)
{
	char *buf, *line, *save = NULL;
	unsigned lineno = 0;
	int ret = 0;

	*v = NULL;
	*n = 0;
	if (read_file(path, &buf, NULL) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end, *p = line;
		double x;

		lineno++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		x = strtod(p, &end);
		while (*end == ' ' || *end == '\t' || *end == '\r')
			end++;
		if (end == p || *end || isnan(x) || isinf(x)) {
			ret = error("%s:%u: not a number: '%s'", path, lineno, p);
			break;
		}
		push(v, n, x);
	}
	free(buf);
	if (!ret && !*n)
		ret = error("%s: no samples", path);
	if (ret < 0) {	/* nothing half-read goes back */
		free(*v);
		*v = NULL;
		*n = 0;
	}
	return ret;
}

static void load_dir(json_t *out, const char *dir, int depth)
{
	char *path = xasprintf("%s/result.json", dir);
	struct dirent **names;
	int k, i;

	if (path_exists(path)) {
		json_t *j = json_load_file(path, 0, NULL);

		if (j)
			json_array_append_new(out, j);
		else
			warning("'%s' is not valid JSON: left out", path);
		free(path);
		return;
	}
	free(path);
	if (depth >= 2)
		return;
	k = scandir(dir, &names, NULL, alphasort);
	for (i = 0; i < k; i++) {
		if (names[i]->d_name[0] != '.' && names[i]->d_type == DT_DIR) {
			char *sub = xasprintf("%s/%s", dir, names[i]->d_name);

			load_dir(out, sub, depth + 1);
			free(sub);
		}
		free(names[i]);
	}
	if (k >= 0)
		free(names);
}

json_t *load_results(const char *dir)
{
	json_t *out = json_array();

	load_dir(out, dir, 0);
	return out;
}
