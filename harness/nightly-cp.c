/*
 * nightly-cp.c - after a night, the change points of every series (job x target x metric)
 * over the whole history (harness/changepoint.h): each night's tested side's raw samples,
 * read from that night's comparison.json. The night's false-alarm rate is held across its
 * series: each is judged at NIGHTLY_CP_ALPHA divided by their number (Bonferroni). With
 * CP_MIN_NIGHTS nights or more the change points decide the entry's status: regressed
 * only on the night a change point for the worse is first confirmed, not on every night
 * after it; with fewer, the night's own A/B does, as before.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "nightly.h"
#include "util.h"

#define NIGHTLY_CP_ALPHA 0.001	/* a night's: about 1-4 % of 60-night histories alarm falsely */
#define CP_MAX_NIGHTS 400	/* the newest nights a series is read over */

struct hnight {
	const char *date;
	json_t *cmp;		/* that night's comparison.json of the entry, or NULL */
	json_t *prev;		/* that night's entry (for the newest before tonight) */
	const char *kernel;	/* that night's kernel under test */
};

static json_t *load_cmp(const char *root, const char *date, json_t *e)
{
	char *p = xasprintf("%s/%s/%s/comparison.json", root, date, jget_str(e, "dir"));
	json_t *j = path_exists(p) ? json_load_file(p, 0, NULL) : NULL;

	free(p);
	return j;
}

/* the nights of @key before @date with a comparison, oldest first, then tonight's */
static int history_of(json_t *index, const char *root, const char *date, json_t *e,
		      struct hnight *h)
{
	json_t *nights = json_object_get(index, "nights"), *n, *x;
	size_t i, k, start;
	int m = 0;

	start = json_array_size(nights) > CP_MAX_NIGHTS ? json_array_size(nights) - CP_MAX_NIGHTS : 0;
	json_array_foreach(nights, i, n) {
		if (i < start || strcmp(jget_str(n, "date"), date) >= 0)
			continue;
		json_array_foreach(json_object_get(n, "entries"), k, x) {
			if (strcmp(jget_str(x, "key"), jget_str(e, "key")) ||
			    !strcmp(jget_str(x, "status"), "infra-failed"))
				continue;
			h[m].date = jget_str(n, "date");
			h[m].cmp = load_cmp(root, h[m].date, x);
			h[m].prev = x;
			h[m].kernel = jget_str(x, "kernel");
			if (h[m].cmp)
				m++;
		}
	}
	h[m].date = date;
	h[m].prev = NULL;
	h[m].kernel = jget_str(e, "kernel");
	h[m].cmp = load_cmp(root, date, e);
	return h[m].cmp ? m + 1 : m;
}

static int worse(const char *better, double ratio)
{
	return !strcmp(better, "lower") ? ratio > 1 : !strcmp(better, "higher") ? ratio < 1 : 0;
}

/*
 * Was @c (kind, night) already reported in the newest night before tonight (@prev, of
 * @prev_date)? Confirmed in its analysis, or, for a step from that night, its own A/B
 * already called the metric regressed (or improved) the same way: with fewer than 3 nights
 * the A/B decided, and the step it saw is not news the night after.
 */
static int known(json_t *prev, const char *prev_date, const char *metric, json_t *c)
{
	json_t *pm = json_object_get(json_object_get(prev, "metrics"), metric), *p;
	json_t *list = json_object_get(json_object_get(json_object_get(prev, "changepoints"),
						       "metrics"), metric);
	const char *pv = jget_str(pm, "verdict");
	int bad = json_is_true(json_object_get(c, "worse"));
	size_t i;

	if (prev_date && !strcmp(jget_str(c, "kind"), "step") &&
	    !strcmp(jget_str(c, "night_label"), prev_date) &&
	    ((!strncmp(pv, "regressed", 9) && bad) || (!strncmp(pv, "improved", 8) && !bad)))
		return 1;
	json_array_foreach(list, i, p)
		if (json_is_true(json_object_get(p, "confirmed")) &&
		    !strcmp(jget_str(p, "kind"), jget_str(c, "kind")) &&
		    !strcmp(jget_str(p, "night_label"), jget_str(c, "night_label")))
			return 1;
	return 0;
}

/*
 * The nights and kernels on either side of a change point: a step's last night at the old
 * level and its first at the new; a drift's first and last nights.
 */
static void cp_sides(json_t *c, const struct cp_point *p, const char **labels, const char **kerns)
{
	int b = p->kind == CP_STEP ? p->night - 1 : p->night, a = p->kind == CP_STEP ? p->night : p->end;

	if (b < 0)
		return;
	json_object_set_new(c, "before", json_pack("{s:s, s:s?}", "night", labels[b], "kernel",
						   kerns[b]));
	json_object_set_new(c, "after", json_pack("{s:s, s:s?}", "night", labels[a], "kernel",
						  kerns[a]));
}

/* one series: its change points into @all, the newly confirmed ones into @fresh */
static int series(struct hnight *h, int nh, const char *metric, json_t *tm, double alpha,
		  json_t *all, json_t *fresh)
{
	struct cp_night *nights = xcalloc(nh + 1, sizeof(*nights));
	const char **labels = xcalloc(nh + 1, sizeof(*labels));
	const char **kerns = xcalloc(nh + 1, sizeof(*kerns));
	double **vals = xcalloc(nh + 1, sizeof(*vals));
	struct cp_point cps[CP_MAX];
	json_t *list = json_array(), *prev = nh > 1 ? h[nh - 2].prev : NULL;
	const char *verdict = jget_str(tm, "verdict");
	int ab_dir = 0, n = 0, t, k, m, worst = 0;
	size_t i;

	for (t = 0; t < nh; t++) {
		json_t *v = json_object_get(json_object_get(json_object_get(h[t].cmp, "metrics"),
							    metric), "values_b"), *x;
		int ok = json_array_size(v) > 0;

		json_array_foreach(v, i, x)
			ok &= json_is_number(x) && json_number_value(x) > 0;
		if (!ok)
			continue;
		vals[n] = xcalloc(json_array_size(v), sizeof(double));
		json_array_foreach(v, i, x)
			vals[n][i] = json_number_value(x);
		nights[n].v = vals[n];
		nights[n].n = (int)json_array_size(v);
		kerns[n] = h[t].kernel;
		labels[n++] = h[t].date;
	}
	if (!strncmp(verdict, "regressed", 9) || !strncmp(verdict, "improved", 8))
		ab_dir = jget_num(tm, "ratio") > 1 ? 1 : -1;
	m = n && labels[n - 1] == h[nh - 1].date ? cp_analyze(nights, n, alpha, ab_dir, cps) : 0;
	for (k = 0; k < m; k++) {
		json_t *c = cp_json(&cps[k], labels);
		int bad = worse(jget_str(tm, "better"), cps[k].ratio);

		json_object_set_new(c, "worse", json_boolean(bad));
		cp_sides(c, &cps[k], labels, kerns);
		if (cps[k].confirmed && !known(prev, nh > 1 ? h[nh - 2].date : NULL, metric, c)) {
			json_t *f = json_deep_copy(c);

			json_object_set_new(f, "metric", json_string(metric));
			json_array_append_new(fresh, f);
			worst |= bad;
		}
		json_array_append_new(list, c);
	}
	json_object_set_new(all, metric, list);
	for (t = 0; t < n; t++)
		free(vals[t]);
	free(vals);
	free(labels);
	free(kerns);
	free(nights);
	return n >= CP_MIN_NIGHTS ? (worst ? 1 : 0) : -1;
}

static int entry_series(json_t *e)
{
	return json_is_object(json_object_get(e, "metrics")) ?
	       (int)json_object_size(json_object_get(e, "metrics")) : 0;
}

/* the sentence of a change point: "write_s +296.2 % (95 % CI ...) from 2026-01-02, step" */
static char *cp_sentence(json_t *c)
{
	return xasprintf("%s %s %+.1f %% (95 %% CI %+.1f to %+.1f %%) %s %s%s%s",
			 jget_str(c, "metric"), jget_str(c, "kind"), jget_num(c, "change_pct"),
			 100 * (jget_num(c, "ci_low") - 1), 100 * (jget_num(c, "ci_high") - 1),
			 !strcmp(jget_str(c, "kind"), "step") ? "from" : "over",
			 jget_str(c, "night_label"), !strcmp(jget_str(c, "kind"), "step") ? "" : " to ",
			 !strcmp(jget_str(c, "kind"), "step") ? "" : jget_str(c, "end_label"));
}

/*
 * May tonight's kernel be a later night's baseline? Only when the night showed no change:
 * it passed, every metric's verdict is no-change or an improvement (not inconclusive), and
 * no change point, confirmed or not, starts tonight. The first night's A/A of tonight's
 * kernel sets the mark.
 */
static int baseline_ok(json_t *e, const char *date)
{
	json_t *m, *c, *list;
	const char *name;
	size_t i;

	if (strcmp(jget_str(e, "status"), "passed") ||
	    (json_object_get(e, "ab_status") && strcmp(jget_str(e, "ab_status"), "passed")))
		return 0;
	if (!strncmp(jget_str(json_object_get(e, "baseline"), "night"), "none: tonight", 13))
		return 1;
	json_object_foreach(json_object_get(e, "metrics"), name, m) {
		const char *v = jget_str(m, "verdict");

		if (strcmp(v, "no-change") && strncmp(v, "improved", 8))
			return 0;
	}
	json_object_foreach(json_object_get(json_object_get(e, "changepoints"), "metrics"), name, list)
		json_array_foreach(list, i, c)
			if (!strcmp(jget_str(c, "kind"), "step") ?
			    !strcmp(jget_str(c, "night_label"), date) :
			    !strcmp(jget_str(c, "end_label"), date))	/* a drift up to tonight */
				return 0;
	return 1;
}

void nightly_changepoints(json_t *index, const char *root, const char *date, json_t *entries)
{
	struct hnight *h = xcalloc(CP_MAX_NIGHTS + 2, sizeof(*h));
	json_t *e, *m;
	const char *name;
	size_t i;
	int total = 0, t, nh;
	double alpha;

	json_array_foreach(entries, i, e)
		if (strcmp(jget_str(e, "status"), "infra-failed"))
			total += entry_series(e);
	alpha = NIGHTLY_CP_ALPHA / (total > 0 ? total : 1);
	json_array_foreach(entries, i, e) {
		json_t *all = json_object(), *fresh = json_array(), *out;
		int judged = 0, bad = 0, r;

		/* failed runs (Fisher on them) and infrastructure: the night's A/B decides */
		if (!strcmp(jget_str(e, "status"), "infra-failed") || !entry_series(e) ||
		    jget_num(e, "failed_runs") > 0) {
			json_decref(all);
			json_decref(fresh);
			continue;
		}
		nh = history_of(index, root, date, e, h);
		json_object_foreach(json_object_get(e, "metrics"), name, m) {
			r = series(h, nh, name, m, alpha, all, fresh);
			judged |= r >= 0;
			bad |= r == 1;
		}
		out = json_pack("{s:s, s:f, s:i, s:i, s:o, s:o}", "rule",
				"steps and drifts over all nights (docs/nightly.md): a night's "
				"alpha 0.001, Bonferroni over its series; a step confirmed by 2 "
				"nights, or by 1 and the night's own A/B", "alpha", alpha,
				"series_tonight", total, "nights", nh, "metrics", all, "new", fresh);
		json_object_set_new(e, "ab_status", json_incref(json_object_get(e, "status")));
		if (judged) {
			json_t *c;
			size_t k;
			struct text why = { 0 };

			json_array_foreach(fresh, k, c) {
				char *s = cp_sentence(c);

				text_add(&why, "%s%s", k ? "; " : "", s);
				free(s);
			}
			json_object_set_new(e, "status", json_string(bad ? "regressed" : "passed"));
			json_object_set_new(e, "reason", json_string(why.len ?
				why.s : "no new change point over the nights so far"));
			free(why.s);
		} else {
			json_object_set_new(out, "note", json_string(
				"fewer than 3 nights: the night's own A/B decides"));
		}
		json_object_set_new(e, "changepoints", out);
		for (t = 0; t < nh; t++)
			json_decref(h[t].cmp);
	}
	json_array_foreach(entries, i, e)
		json_object_set_new(e, "baseline_ok", json_boolean(baseline_ok(e, date)));
	free(h);
}

char *nightly_cp_line(json_t *entries)
{
	struct text t = { 0 };
	json_t *e, *c;
	size_t i, k;
	int judged = 0, fresh = 0;

	json_array_foreach(entries, i, e) {
		json_t *cp = json_object_get(e, "changepoints");

		if (!cp || json_object_get(cp, "note"))
			continue;
		judged += (int)json_object_size(json_object_get(cp, "metrics"));
		json_array_foreach(json_object_get(cp, "new"), k, c) {
			char *s = cp_sentence(c);

			text_add(&t, "%s%s %s%s", fresh++ ? "; " : "", jget_str(e, "key"), s,
				 json_is_true(json_object_get(c, "worse")) ? " (worse)" : "");
			free(s);
		}
	}
	if (!judged)
		return xstrdup("");
	if (!fresh) {
		free(t.s);
		return xasprintf(", no new change point in %d series", judged);
	}
	{
		char *s = xasprintf(", %d new change point%s: %s", fresh, fresh > 1 ? "s" : "", t.s);

		free(t.s);
		return s;
	}
}
