/* compare.c - per-metric samples of two sides, statistics, verdicts, claim, table */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "util.h"

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
		if (side)
			c->failed_b++;
		else
			c->failed_a++;
		return 0;
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

/* the claim's metric, named before any run, when it is a performance metric; else -1 */
static int primary_index(const struct cmp *c)
{
	int i;

	for (i = 0; c->claim.present && i < c->n; i++)
		if (!strcmp(c->m[i].name, c->claim.metric))
			return c->m[i].better == BETTER_NONE ? -1 : i;
	return -1;
}

/*
 * Two families: the job's claim metric is its primary endpoint, fixed before any run, and is
 * tested on its own at alpha; every other performance metric is a secondary one, with Holm's
 * correction among the secondaries. Without a claim all metrics are one Holm family.
 */
void cmp_compute(struct cmp *c)
{
	double p[CMP_MAX_METRICS], adj[CMP_MAX_METRICS];
	int i;

	c->primary = primary_index(c);
	for (i = 0; i < c->n; i++) {
		struct metric *m = &c->m[i];

		compare_samples(m->a, m->na, m->b, m->nb, &m->c);
		/* only performance metrics enter the correction: sizes and counts are facts */
		p[i] = m->better == BETTER_NONE || i == c->primary ? NAN : m->c.p_mw;
	}
	holm_adjust(p, c->n, adj);
	if (c->primary >= 0)
		adj[c->primary] = c->m[c->primary].c.p_mw;
	for (i = 0; i < c->n; i++) {
		struct metric *m = &c->m[i];

		m->c.p_adj = adj[i];
		if (m->better == BETTER_NONE) {
			m->c.verdict = V_INCONCLUSIVE;
			snprintf(m->c.why, sizeof(m->c.why), "not a performance metric (unit '%s')",
				 m->unit);
			continue;
		}
		decide(&m->c, m->better == BETTER_HIGHER, c->threshold);
	}
	claim_compute(c);
}

int runs_needed(double cv, double delta)
{
	if (isnan(cv) || delta <= 0)
		return -1;
	return (int)ceil(16.0 * cv * cv / (delta * delta));
}

static json_t *jreal(double v)
{
	return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *summary_json(const struct summary *s)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "n", (json_int_t)s->n,
			 "mean", jreal(s->mean), "median", jreal(s->median),
			 "stddev", jreal(s->stddev), "cv", jreal(s->cv), "min", jreal(s->min),
			 "max", jreal(s->max), "p50", jreal(s->p50), "p90", jreal(s->p90),
			 "p99", jreal(s->p99));
}

static json_t *outliers_json(const double *v, size_t n)
{
	size_t *idx = xcalloc(n ? n : 1, sizeof(size_t)), k, i;
	json_t *a = json_array();

	k = mad_outliers(v, n, idx);
	for (i = 0; i < k; i++)
		json_array_append_new(a, json_integer((json_int_t)idx[i]));
	free(idx);
	return a;
}

static json_t *values_json(const double *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, jreal(v[i]));
	return a;
}

json_t *cmp_json(const struct cmp *c)
{
	static const char *const better_names[] = { "lower", "higher", "none" };
	json_t *metrics = json_object(), *out;
	int i;

	for (i = 0; i < c->n; i++) {
		const struct metric *m = &c->m[i];
		json_t *j = json_pack(
			"{s:s, s:s, s:b, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:s,"
			" s:b, s:o, s:o, s:{s:o, s:o}, s:{s:i, s:i}, s:o, s:o, s:O, s:O}",
			"unit", m->unit, "better", better_names[m->better], "per_op", m->per_op,
			"n_a", (json_int_t)m->na, "n_b", (json_int_t)m->nb,
			"median_a", jreal(m->c.a.median), "median_b", jreal(m->c.b.median),
			"ratio", jreal(m->c.ratio), "ratio_ci_low", jreal(m->c.ratio_lo),
			"ratio_ci_high", jreal(m->c.ratio_hi), "p_mannwhitney", jreal(m->c.p_mw),
			"p_welch", jreal(m->c.p_welch), "p_adjusted", jreal(m->c.p_adj),
			"verdict", verdict_names[m->c.verdict], "why", m->c.why,
			"mannwhitney_exact", m->c.mw_exact,
			"a", summary_json(&m->c.a), "b", summary_json(&m->c.b),
			"min_p_possible", "value", jreal(mann_whitney_min_p(m->na, m->nb)),
			"alpha", jreal(STATS_ALPHA),
			"runs_needed_a", "shift_5pct", runs_needed(m->c.a.cv, 0.05),
			"shift_10pct", runs_needed(m->c.a.cv, 0.10),
			"values_a", values_json(m->a, m->na), "values_b", values_json(m->b, m->nb),
			"raw_a", m->all_a, "raw_b", m->all_b);

		/* positions in values_a / values_b, flagged by MAD, kept in every statistic */
		json_object_set_new(j, "outliers_a", outliers_json(m->a, m->na));
		json_object_set_new(j, "outliers_b", outliers_json(m->b, m->nb));
		json_object_set_new(j, "endpoint", json_string(m->better == BETTER_NONE ? "none" :
							       i == c->primary ? "primary" :
							       "secondary"));
		json_object_set_new(metrics, m->name, j);
	}
	out = json_pack("{s:o, s:f, s:f, s:i, s:i, s:i}", "metrics", metrics,
			"threshold", c->threshold, "alpha", STATS_ALPHA,
			"bootstrap_resamples", STATS_BOOTSTRAP, "bootstrap_seed", STATS_SEED,
			"failed_runs", c->failed_a + c->failed_b);
	json_object_set_new(out, "failed_a", json_integer(c->failed_a));
	json_object_set_new(out, "failed_b", json_integer(c->failed_b));
	json_object_set_new(out, "primary_metric",
			    c->primary >= 0 ? json_string(c->m[c->primary].name) : json_null());
	if (c->claim.present) {
		const struct claim *cl = &c->claim;

		json_object_set_new(out, "claim",
				    json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:f, s:s, s:s}",
					      "metric", cl->metric, "source", cl->source, "note", cl->note,
					      "published_stock", jreal(cl->stock),
					      "published_patched", jreal(cl->patched),
					      "published_change", jreal(cl->change),
					      "tolerance", cl->tolerance,
					      "result", claim_names[cl->result], "why", cl->why));
	}
	return out;
}

/* @v in "%g" style, at most @width chars: fewer digits rather than a wider column */
static void fmt_num(char *buf, size_t len, double v, int width)
{
	int prec;

	for (prec = 5; prec > 1; prec--)
		if (snprintf(buf, len, "%.*g", prec, v) <= width)
			return;
	snprintf(buf, len, "%.1g", v);
}

void fmt_change(char *buf, size_t len, double ratio)
{
	double pct = (ratio - 1) * 100;

	if (isnan(ratio) || isinf(ratio))
		snprintf(buf, len, "-");
	else if (fabs(pct) < 9999.95)
		snprintf(buf, len, "%+.1f%%", pct);
	else if (ratio < 999999.5)
		snprintf(buf, len, "x%.0f", ratio);
	else
		snprintf(buf, len, "x%.1e", ratio);
}

void fmt_known(char *buf, size_t len, const char *fmt, double v)
{
	if (isnan(v) || isinf(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
}

void fmt_ci_bound(char *buf, size_t len, double ratio)
{
	double pct = (ratio - 1) * 100;

	if (isnan(ratio) || isinf(ratio))
		snprintf(buf, len, "-");
	else if (fabs(pct) < 999.95)
		snprintf(buf, len, "%+.1f", pct);
	else if (ratio < 99999.5)
		snprintf(buf, len, "x%.0f", ratio);
	else
		snprintf(buf, len, "x%.0e", ratio);
}

/* "median ±CV": at most 15 columns (the number 8, " ±" and the CV 5) */
static void fmt_side(char *buf, size_t len, const struct summary *s)
{
	char num[16];

	if (isnan(s->median)) {
		snprintf(buf, len, "%s", "-");
		return;
	}
	fmt_num(num, sizeof(num), s->median, 8);
	if (isnan(s->cv) || isinf(s->cv))
		snprintf(buf, len, "%s", num);
	else if (s->cv * 100 < 99.95)
		snprintf(buf, len, "%s ±%4.1f%%", num, s->cv * 100);
	else if (s->cv * 100 < 999.5)
		snprintf(buf, len, "%s ±%4.0f%%", num, s->cv * 100);
	else
		snprintf(buf, len, "%s ±>999%%", num);
}

void print_wrapped(char *text)
{
	size_t lead = strspn(text, " ");
	const char *p = text + lead;
	int col = printf("%.*s", (int)lead, text), first = 1;

	while (*p) {
		size_t w = strcspn(p, " ");

		if (!first && col + 1 + (int)w > CMP_COLUMNS)
			col = printf("\n    ") - 1;
		else if (!first)
			col += printf(" ");
		col += printf("%.*s", (int)w, p);
		first = 0;
		p += w;
		p += strspn(p, " ");
	}
	putchar('\n');
	free(text);
}

void cmp_print(const struct cmp *c, const char *label_a, const char *label_b)
{
	const char *la = strrchr(label_a, '/') ? strrchr(label_a, '/') + 1 : label_a;
	const char *lb = strrchr(label_b, '/') ? strrchr(label_b, '/') + 1 : label_b;
	int i;

	/* 21 + 15 + 15 + 8 + 16 + 7 + 12 ("inconclusive") and six spaces: 100 columns */
	printf("%-21s %-15.15s %-15.15s %8s %16s %7s %s\n", "metric", la, lb, "change",
	       "95% CI", "p", "verdict");
	for (i = 0; i < c->n; i++) {
		const struct metric *m = &c->m[i];
		char name[160], sa[32], sb[32], ci[40], lo[16], hi[16], ch[16], p[16];

		if (m->better == BETTER_NONE)
			continue;
		/* "name (unit)" longer than its 21 columns goes whole on a line of its own */
		snprintf(name, sizeof(name), "%s (%s)", m->name, m->unit);
		if (strlen(name) > 21) {
			printf("%s\n", name);
			name[0] = '\0';
		}
		fmt_side(sa, sizeof(sa), &m->c.a);
		fmt_side(sb, sizeof(sb), &m->c.b);
		fmt_change(ch, sizeof(ch), m->c.ratio);
		if (isnan(m->c.ratio_lo) || isnan(m->c.ratio_hi)) {
			snprintf(ci, sizeof(ci), "-");
		} else {
			fmt_ci_bound(lo, sizeof(lo), m->c.ratio_lo);
			fmt_ci_bound(hi, sizeof(hi), m->c.ratio_hi);
			snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
		}
		if (isnan(m->c.p_adj))
			snprintf(p, sizeof(p), "-");
		else
			snprintf(p, sizeof(p), m->c.p_adj < 1e-3 ? "%.2g" : "%.3g", m->c.p_adj);
		/* "±" is two bytes but one column */
		printf("%-21.21s %-*s %-*s %8s %16s %7s %s\n", name, 15 + !!strstr(sa, "±"), sa,
		       15 + !!strstr(sb, "±"), sb, ch, ci, p, verdict_names[m->c.verdict]);
	}
	for (i = 0; i < c->n; i++)
		if (c->m[i].better != BETTER_NONE && c->m[i].c.verdict == V_INCONCLUSIVE) {
			print_wrapped(xasprintf("  inconclusive %s: %s", c->m[i].name, c->m[i].c.why));
			break;	/* the reason is the same for every metric of a run count */
		}
	if (c->primary >= 0)
		print_wrapped(xasprintf("  primary endpoint %s (the claim's metric): its p alone, "
					"Holm across the others", c->m[c->primary].name));
	if (c->failed_a || c->failed_b)
		printf("  failed runs: %d %s, %d %s (left out of the statistics)\n", c->failed_a,
		       label_a, c->failed_b, label_b);
	if (c->claim.present)
		print_wrapped(xasprintf("claim (%s): %s: %s", c->claim.source,
					claim_names[c->claim.result], c->claim.why));
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
