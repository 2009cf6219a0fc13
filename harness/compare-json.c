/* compare-json.c - comparison.json's metrics, rule, failures and claim from a computed struct cmp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "util.h"

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

/* the rule that gave the verdicts, in words and figures, for comparison.json */
static json_t *rule_json(const struct cmp *c)
{
	int m = c->secondaries;

	return json_pack("{s:s, s:s, s:s, s:o, s:s, s:s, s:s, s:i, s:f, s:f, s:f, s:{s:i, s:i, s:i}}",
		"test", "p = min(1, 2 min(p_mannwhitney, p_welch)): the exact Mann-Whitney test and "
			"Welch's t on log values, Bonferroni over the two",
		"interval", "Welch's 95 % t-interval on log values: the ratio of the geometric means "
			"(on raw values, a difference, for a metric with a run at 0 or below)",
		"verdict", "improved/regressed: p_adjusted < alpha, the interval excludes 1 and "
			"reaches past 1 +/- threshold (inside it: improved-small/regressed-small); "
			"no-change: the interval inside 1 +/- threshold; else inconclusive",
		"primary", c->primary >= 0 ? json_string(c->m[c->primary].name) : json_null(),
		"primary_source", primary_source_names[c->primary >= 0 ? c->primary_source : PRIMARY_NONE],
		"primary_rule", "tested alone at alpha: a false verdict on it in at most 5 % of A/As",
		"secondary_rule", "Benjamini-Hochberg over the other performance metrics: false "
			"discovery rate at most alpha (the expected share of false verdicts among "
			"theirs; in an A/A, the chance of any)",
		"secondaries", m, "alpha", STATS_ALPHA, "confidence", STATS_CONFIDENCE,
		"threshold", c->threshold,
		"rank_runs_a_side", "primary", runs_for_rank_level(STATS_ALPHA),
		"all_secondaries_moved", runs_for_rank_level(STATS_ALPHA),
		"one_secondary_alone", runs_for_rank_level(STATS_ALPHA / (m > 1 ? m : 1)));
}

static json_t *failures_json(const struct cmp *c)
{
	return json_pack("{s:{s:i, s:i, s:i, s:s}, s:{s:i, s:i, s:i, s:s}, s:o, s:o, s:s, s:s}",
		"stock", "ok", c->ok_a, "failed", c->failed_a, "guest_failed", c->guest_failed_a,
		"first_failure", c->first_fail[0],
		"patched", "ok", c->ok_b, "failed", c->failed_b, "guest_failed", c->guest_failed_b,
		"first_failure", c->first_fail[1],
		"p_fisher_more", jreal(c->fail.p_more), "p_fisher_fewer", jreal(c->fail.p_fewer),
		"verdict", failure_names[c->fail.kind], "why", c->fail.why);
}

static json_t *metric_json(const struct cmp *c, int i)
{
	static const char *const better_names[] = { "lower", "higher", "none" };
	const struct metric *m = &c->m[i];
	json_t *j = json_pack(
		"{s:s, s:s, s:b, s:I, s:I, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o,"
		" s:o, s:o, s:o, s:s, s:s, s:b, s:o, s:o, s:{s:o, s:o}, s:o, s:o, s:O, s:O}",
		"unit", m->unit, "better", better_names[m->better], "per_op", m->per_op,
		"n_a", (json_int_t)m->na, "n_b", (json_int_t)m->nb,
		"median_a", jreal(m->c.a.median), "median_b", jreal(m->c.b.median),
		"scale", scale_names[m->c.scale],
		"ratio", jreal(m->c.ratio), "ratio_ci_low", jreal(m->c.ratio_lo),
		"ratio_ci_high", jreal(m->c.ratio_hi), "ratio_of_medians", jreal(m->c.ratio_medians),
		"difference", jreal(m->c.diff), "difference_ci_low", jreal(m->c.diff_lo),
		"difference_ci_high", jreal(m->c.diff_hi), "sd", jreal(m->c.sd), "df", jreal(m->c.df),
		"p_mannwhitney", jreal(m->c.p_mw), "p_welch", jreal(m->c.p_welch), "p", jreal(m->c.p),
		"p_adjusted", jreal(m->c.p_adj),
		"verdict", verdict_names[m->c.verdict], "why", m->c.why,
		"mannwhitney_exact", m->c.mw_exact,
		"a", summary_json(&m->c.a), "b", summary_json(&m->c.b),
		"min_p_possible", "value", jreal(mann_whitney_min_p(m->na, m->nb)),
		"alpha", jreal(STATS_ALPHA),
		"values_a", values_json(m->a, m->na), "values_b", values_json(m->b, m->nb),
		"raw_a", m->all_a, "raw_b", m->all_b);

	json_object_set_new(j, "runs_to_decide", m->c.runs_to_decide > 0 ?
			    json_integer(m->c.runs_to_decide) : json_null());
	/* the name is stable; since the verdict rule it is the rule's n for the pooled spread */
	json_object_set_new(j, "runs_needed_a", json_pack("{s:i, s:i, s:f}",
			    "shift_5pct", cmp_runs_needed(c, i, 0.05),
			    "shift_10pct", cmp_runs_needed(c, i, 0.10),
			    "power", VERDICT_POWER));
	/* positions in values_a / values_b, flagged by MAD, kept in every statistic */
	json_object_set_new(j, "outliers_a", outliers_json(m->a, m->na));
	json_object_set_new(j, "outliers_b", outliers_json(m->b, m->nb));
	json_object_set_new(j, "endpoint", json_string(m->better == BETTER_NONE ? "none" :
						       i == c->primary ? "primary" : "secondary"));
	return j;
}

json_t *cmp_json(const struct cmp *c)
{
	json_t *metrics = json_object(), *out;
	int i;

	for (i = 0; i < c->n; i++)
		json_object_set_new(metrics, c->m[i].name, metric_json(c, i));
	out = json_pack("{s:o, s:f, s:f, s:i, s:i, s:i, s:o, s:o, s:s}", "metrics", metrics,
			"threshold", c->threshold, "alpha", STATS_ALPHA,
			"failed_runs", c->failed_a + c->failed_b,
			"failed_a", c->failed_a, "failed_b", c->failed_b,
			"rule", rule_json(c), "failures", failures_json(c),
			"outcome", outcome_names[cmp_outcome(c)]);
	json_object_set_new(out, "primary_metric",
			    c->primary >= 0 ? json_string(c->m[c->primary].name) : json_null());
	if (c->primary_name && c->primary < 0)
		json_object_set_new(out, "primary_missing", json_string(c->primary_name));
	if (c->counters)	/* what else changed: kernel counters, a family of their own */
		json_object_set(out, "counters", c->counters);
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

int comparison_from_json(json_t *m, struct comparison *c)
{
	const char *scale = json_string_value(json_object_get(m, "scale"));
	int v = verdict_find(json_string_value(json_object_get(m, "verdict")) ?: "");

	memset(c, 0, sizeof(*c));
	if (v < 0)
		return -1;
	c->verdict = v;
	c->scale = scale && !strcmp(scale, "difference") ? SCALE_DIFFERENCE : SCALE_RATIO;
	c->a.n = (size_t)json_integer_value(json_object_get(m, "n_a"));
	c->b.n = (size_t)json_integer_value(json_object_get(m, "n_b"));
	c->a.median = jget_num(m, "median_a");
	c->b.median = jget_num(m, "median_b");
	c->ratio = jget_num(m, "ratio");
	c->ratio_lo = jget_num(m, "ratio_ci_low");
	c->ratio_hi = jget_num(m, "ratio_ci_high");
	c->ratio_medians = jget_num(m, "ratio_of_medians");
	c->diff = jget_num(m, "difference");
	c->diff_lo = jget_num(m, "difference_ci_low");
	c->diff_hi = jget_num(m, "difference_ci_high");
	c->sd = jget_num(m, "sd");
	c->df = jget_num(m, "df");
	c->p_mw = jget_num(m, "p_mannwhitney");
	c->p_welch = jget_num(m, "p_welch");
	c->p = jget_num(m, "p");
	c->p_adj = jget_num(m, "p_adjusted");
	c->runs_to_decide = json_is_integer(json_object_get(m, "runs_to_decide")) ?
			    (int)json_integer_value(json_object_get(m, "runs_to_decide")) : -1;
	snprintf(c->why, sizeof(c->why), "%s", json_string_value(json_object_get(m, "why")) ?: "");
	return 0;
}
