/*
 * ab-finish.c - what an A/B says once its runs are in: comparison.json, the
 * summary and table, calibrate's advice, report.html and the exit status; and,
 * after the first pair, the family rule it will apply
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ab-finish.h"
#include "ab-plan.h"
#include "profilers/profiler.h"
#include "compare.h"
#include "config.h"
#include "html.h"
#include "summary.h"
#include "util.h"

json_t *ab_collect(const struct ab_opts *o, json_t *order, struct cmp *c, const struct job *job)
{
	json_t *results = json_array(), *e;
	size_t i;

	cmp_init(c, o->threshold);
	json_array_foreach(order, i, e) {
		json_t *r = json_object_get(e, "result");
		int side = strcmp(json_string_value(json_object_get(e, "side")), "stock") != 0;

		if (r) {
			cmp_add_result(c, side, r);
			json_array_append(results, r);
		}
	}
	if (job)
		cmp_set_claim(c, job->claim_metric, job->claim_direction, job->claim_stock,
			      job->claim_patched, job->claim_change, job->claim_source,
			      job->claim_note);
	if (o->metric)
		cmp_set_primary(c, o->metric, PRIMARY_OPTION);
	else if (job && job->metric && *job->metric)
		cmp_set_primary(c, job->metric, PRIMARY_JOB);
	cmp_compute(c);
	return results;
}

/*
 * Once the first runs are in, the family is known: how many metrics, which one
 * is primary, and so the runs a side a verdict can rest on. Below the runs at
 * which the rank test can call a change at all, only Welch's test can (clean
 * runs): the default run count is raised to it, an explicit -n is kept and
 * told so.
 */
void ab_announce_family(const struct ab_opts *o, json_t *order, const struct job *job,
			    int *target)
{
	int rank = runs_for_rank_level(STATS_ALPHA), alone;
	struct cmp c;
	json_t *r = ab_collect(o, order, &c, job);

	alone = runs_for_rank_level(STATS_ALPHA / (c.secondaries > 1 ? c.secondaries : 1));
	if (c.primary >= 0)
		info("ab: primary metric %s, tested alone; %d other performance metric%s under "
		     "Benjamini-Hochberg (false discovery rate 5 %%)", c.m[c.primary].name,
		     c.secondaries, c.secondaries == 1 ? "" : "s");
	else if (c.secondaries > 2)
		info("ab: %d performance metrics, one Benjamini-Hochberg family (false discovery rate "
		     "5 %%); %d runs a side call by rank a change that moved most of them, %d one that "
		     "moved one alone (fewer when the runs are clean); --metric NAME tests one alone",
		     c.secondaries, rank, alone);
	if (*target < rank && !o->runs_given) {
		info("ab: %d runs a side cannot reach p < 0.05 by rank: %d a side", *target, rank);
		*target = rank;
	} else if (*target < rank) {
		info("ab: at %d runs a side only Welch's test can call a change (runs that repeat "
		     "closely); the rank test needs %d", *target, rank);
	}
	json_decref(r);
	cmp_release(&c);
}

/*
 * calibrate's advice: each metric's spread over both sides and the runs a side
 * at which kpair's own rule (its test, and the family the metric is in) calls a
 * 5 % and a 10 % shift of that metric alone 80 % of the time
 */
static void calibrate_table(const struct cmp *c)
{
	int i, w = 6;

	for (i = 0; i < c->n; i++)
		if (c->m[i].better != BETTER_NONE && (int)strlen(c->m[i].name) > w)
			w = (int)strlen(c->m[i].name);
	printf("%-*s %8s %12s %12s\n", w, "metric", "CV", "runs for 5%", "runs for 10%");
	for (i = 0; i < c->n; i++) {
		char n5[16], n10[16];
		struct summary all;
		double *v;
		int r5 = cmp_runs_needed(c, i, 0.05), r10 = cmp_runs_needed(c, i, 0.10);

		if (c->m[i].better == BETTER_NONE)
			continue;
		v = xcalloc(c->m[i].na + c->m[i].nb, sizeof(double));
		memcpy(v, c->m[i].a, c->m[i].na * sizeof(double));
		memcpy(v + c->m[i].na, c->m[i].b, c->m[i].nb * sizeof(double));
		summarize(v, c->m[i].na + c->m[i].nb, &all);
		free(v);
		fmt_known(n5, sizeof(n5), "%.0f", r5 > 0 ? r5 : NAN);
		fmt_known(n10, sizeof(n10), "%.0f", r10 > 0 ? r10 : NAN);
		printf("%-*s %7.2f%% %12s %12s\n", w, c->m[i].name, all.cv * 100, n5, n10);
	}
	print_wrapped(xasprintf("  runs for 5%%/10%%: runs a side at which kpair's verdict calls a "
				"shift of that size in that metric alone %.0f %% of the time (its "
				"test, and %s), at the spread measured here",
				VERDICT_POWER * 100, c->secondaries > 1 ?
				"Benjamini-Hochberg among the secondary metrics" :
				"the metric tested alone"));
}

/* comparison.json, the table and report.html from @order */
int ab_finish(const struct ab_opts *o, json_t *order, const struct job *job)
{
	char *path = xasprintf("%s/comparison.json", o->out_dir), *text;
	json_t *results, *out, *prof, *first = NULL, *e, *kern[2] = { NULL, NULL }, *light = json_array();
	struct cmp c;
	size_t i;
	int ret, status;

	results = ab_collect(o, order, &c, job);
	json_array_foreach(order, i, e) {
		json_t *r = json_object_get(e, "result");
		int side = strcmp(json_string_value(json_object_get(e, "side")), "stock") != 0;

		if (!first && r && json_object_get(r, "job"))
			first = r;
		if (!kern[side] && r && json_object_get(r, "kernel"))
			kern[side] = json_object_get(r, "kernel");
		json_array_append_new(light, json_pack("{s:O, s:O, s:O, s:O, s:O, s:O*}",
			"index", json_object_get(e, "index"), "side", json_object_get(e, "side"),
			"run_id", json_object_get(e, "run_dir"), "status", json_object_get(e, "status"),
			"reason", json_object_get(e, "reason"), "host", json_object_get(e, "host")));
	}
	out = cmp_json(&c);
	json_object_set_new(out, "format", json_string(COMPARE_FORMAT));
	json_object_set_new(out, "kind", json_string(o->calibrate ? "calibrate" : "ab"));
	json_object_set_new(out, "job", first ? json_incref(json_object_get(first, "job")) : json_null());
	json_object_set_new(out, "host", first ? json_incref(json_object_get(first, "host")) : json_null());
	json_object_set_new(out, "accel", first ? json_incref(json_object_get(first, "accel")) : json_null());
	json_object_set_new(out, "sides", json_pack("{s:{s:s, s:O, s:o}, s:{s:s, s:O, s:o}}",
		"stock", "kernel_id", o->side[0].kernel, "kernel", kern[0] ? kern[0] : json_null(),
		"sets", ab_strings_json(o->side[0].sets, o->side[0].nset),
		"patched", "kernel_id", o->side[1].kernel, "kernel", kern[1] ? kern[1] : json_null(),
		"sets", ab_strings_json(o->side[1].sets, o->side[1].nset)));
	json_object_set_new(out, "sets", ab_strings_json(o->sets, o->nset));
	json_object_set_new(out, "order_seed", json_integer((json_int_t)o->seed));
	if (o->nhosts)
		json_object_set_new(out, "hosts", json_pack("{s:o, s:b}", "uris",
			ab_strings_json(o->hosts, o->nhosts), "mixed_in_pairs", o->mix_hosts));
	json_object_set_new(out, "order", light);
	json_object_set_new(out, "command", json_string(text = ab_command(o)));
	free(text);
	prof = ab_profile_load(o->out_dir);
	if (prof)
		json_object_set_new(out, "profile", prof);
	json_object_set_new(out, "summary", summary_lines(out));
	if (prof && !json_object_get(prof, "absent")) {	/* why it changed, in one sentence */
		char *s = profile_diff_sentence(prof, 3);

		json_array_append_new(json_object_get(out, "summary"), json_string(s));
		free(s);
	} else if (prof) {
		char *s = xasprintf("no profile diff: %s", jget_str(prof, "absent"));

		json_array_append_new(json_object_get(out, "summary"), json_string(s));
		free(s);
	}
	text = json_dumps(out, JSON_INDENT(2));
	ret = write_file_atomic(path, text, strlen(text));
	free(text);
	printf("%s: %s vs %s, %zu run%s\n", o->calibrate ? "calibrate" : "ab",
	       o->side[0].kernel, o->side[1].kernel, json_array_size(order),
	       json_array_size(order) == 1 ? "" : "s");
	summary_print(json_object_get(out, "summary"));
	cmp_print(&c, o->calibrate ? "A" : "stock", o->calibrate ? "A'" : "patched");
	if (o->calibrate)
		calibrate_table(&c);
	if (!ret && html_report(o->out_dir, out) == 0)
		printf("  -> %s/comparison.json, %s/report.html\n", o->out_dir, o->out_dir);
	else
		printf("  -> %s/comparison.json\n", o->out_dir);
	json_decref(out);
	json_decref(results);
	status = outcome_exit(cmp_outcome(&c));
	cmp_release(&c);
	free(path);
	return ret < 0 ? 3 : status;
}

