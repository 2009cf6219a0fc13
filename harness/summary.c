/*
 * summary.c - what a comparison found, in words: the sentences that open the
 * terminal table and report.html (and comparison.json's "summary")
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "summary.h"
#include "util.h"

static int perf(json_t *m)
{
	return strcmp(jget_str(m, "better"), "none") != 0;
}

/* a change the runs show: improved, regressed, or either inside the threshold */
static int decisive(json_t *m)
{
	int v = verdict_find(jget_str(m, "verdict"));

	return v >= 0 && verdict_changed(v);
}

static int small(json_t *m)
{
	int v = verdict_find(jget_str(m, "verdict"));

	return v == V_IMPROVED_SMALL || v == V_REGRESSED_SMALL;
}

/* "5 runs a side" or "5 stock and 4 patched runs" */
static void runs_phrase(struct text *t, json_t *m, const char *la, const char *lb)
{
	long long a = (long long)json_integer_value(json_object_get(m, "n_a"));
	long long b = (long long)json_integer_value(json_object_get(m, "n_b"));

	if (a == b)
		text_add(t, "%lld run%s a side", a, a == 1 ? "" : "s");
	else
		text_add(t, "%lld %s and %lld %s runs", a, la, b, lb);
}

/*
 * "7.7 % faster on read_s (95 % CI 7.6-7.8 %)": the ratio's distance from 1 in
 * the direction the metric counts as faster; past 4 digits of percent, a ratio
 */
static void change_phrase(struct text *t, json_t *m, const char *name)
{
	double r = jget_num(m, "ratio"), lo = jget_num(m, "ratio_ci_low"), hi = jget_num(m, "ratio_ci_high");
	int higher = !strcmp(jget_str(m, "better"), "higher");
	int faster = higher ? r > 1 : r < 1;
	double a = fabs(lo - 1) * 100, b = fabs(hi - 1) * 100;
	int prec;

	if (!strcmp(jget_str(m, "scale"), "difference")) {
		double d = jget_num(m, "difference");

		faster = higher ? d > 0 : d < 0;
		text_add(t, "%s on %s by %.4g %s (95 %% CI %.4g to %.4g, judged on the difference: "
			 "the stock median is %.4g)", faster ? "better" : "worse", name, fabs(d),
			 jget_str(m, "unit"), jget_num(m, "difference_ci_low"),
			 jget_num(m, "difference_ci_high"), jget_num(m, "median_a"));
		return;
	}
	if (fabs(r - 1) * 100 >= 9999.95) {	/* only a ratio above 1 gets here */
		text_add(t, "%.0f times %s on %s (95 %% CI %.0f-%.0f times)", r,
			 higher ? "faster" : "slower", name, lo, hi);
		return;
	}
	/* a CI narrower than 0.2 points gets a second decimal, so that it does not read 3.1-3.1 */
	prec = fabs(b - a) < 0.2 ? 2 : 1;
	text_add(t, "%.*f %% %s on %s (95 %% CI %.*f-%.*f %%%s)", prec, fabs(r - 1) * 100,
		 faster ? "faster" : "slower", name, prec, a < b ? a : b, prec, a < b ? b : a,
		 small(m) ? ", inside the no-change threshold" : "");
}

/* the whole comparison in one sentence */
static char *headline(json_t *metrics, double threshold, const char *la, const char *lb, int aa)
{
	struct text t = { 0 };
	json_t *m, *one = NULL;
	const char *name;
	int n = 0, nchange = 0, k = 0, i = 0;

	json_object_foreach(metrics, name, m) {
		if (!perf(m))
			continue;
		n++;
		nchange += !strcmp(jget_str(m, "verdict"), "no-change");
		k += decisive(m);
		one = m;
	}
	if (k) {
		text_add(&t, "%s is ", lb);
		json_object_foreach(metrics, name, m) {
			if (!perf(m) || !decisive(m))
				continue;
			text_add(&t, "%s", !i ? "" : i == k - 1 ? " and " : ", ");
			change_phrase(&t, m, name);
			i++;
		}
		text_add(&t, " than %s, ", la);
		runs_phrase(&t, one, la, lb);
	} else if (n && nchange == n) {
		text_add(&t, "no change: %s is within +/- %.0f %% of %s on every metric, ", lb,
			 threshold * 100, la);
		runs_phrase(&t, one, la, lb);
	} else if (n) {
		json_t *best = NULL;

		text_add(&t, "no verdict: these runs cannot tell %s from %s on any metric (", lb, la);
		runs_phrase(&t, one, la, lb);
		text_add(&t, ")");
		json_object_foreach(metrics, name, m)	/* the metric fewest runs would decide */
			if (perf(m) && json_integer_value(json_object_get(m, "runs_to_decide")) > 0 &&
			    (!best || json_integer_value(json_object_get(m, "runs_to_decide")) <
				      json_integer_value(json_object_get(best, "runs_to_decide"))))
				best = m;
		json_object_foreach(metrics, name, m)
			if (m == best)
				text_add(&t, "; about %lld runs a side would decide %s",
					 (long long)json_integer_value(json_object_get(m, "runs_to_decide")),
					 name);
	} else {
		text_add(&t, "nothing to compare: no run of either side measured a metric");
	}
	if (aa)
		text_add(&t, " (A/A: the same kernel and settings on both sides)");
	return t.s;
}

/* "read_s: improved: 7.7 % faster on read_s (...), 5 runs a side" */
static char *metric_sentence(const char *name, json_t *m, const char *la, const char *lb)
{
	struct text t = { 0 };

	text_add(&t, "%s: %s: ", name, jget_str(m, "verdict"));
	if (decisive(m)) {
		text_add(&t, "%s is ", lb);
		change_phrase(&t, m, name);
		text_add(&t, " than %s, ", la);
		runs_phrase(&t, m, la, lb);
	} else {
		text_add(&t, "%s", jget_str(m, "why"));
	}
	return t.s;
}

/* what the job's measurement mode means for the numbers */
static char *mode_sentence(json_t *job)
{
	const char *mode = jget_str(job, "mode"), *pin = jget_str(job, "pin");
	const char *backing = jget_str(json_object_get(job, "disk"), "backing");
	struct text t = { 0 };

	text_add(&t, "mode: %s, pin %s, disk.backing %s: ", *mode ? mode : "wallclock",
		 *pin ? pin : "none", *backing ? backing : "file");
	if (!strcmp(mode, "icount"))
		text_add(&t, "guest time counts instructions (1 ns each) and an idle wait costs "
			 "nothing, so runs repeat almost exactly and a small difference needs few "
			 "runs; device latency is not in the numbers");
	else if (!strcmp(mode, "icount-sleep"))
		text_add(&t, "guest time counts instructions while the guest runs and real time "
			 "while it waits, so the host's noise enters only the waits");
	else
		text_add(&t, "real time, with all of the host's noise in it (CV 5-30 %% on a "
			 "shared host): small differences need many runs");
	if (!strcmp(backing, "ram"))
		text_add(&t, "; the scratch disk is a RAM disk inside the guest: no host I/O in the time");
	else if (!strcmp(backing, "tmpfs"))
		text_add(&t, "; the scratch image is in the host's /dev/shm");
	text_add(&t, " (docs/measurement-modes.md)");
	return t.s;
}

/*
 * A kernel in the user's words: a git build as the revision they gave, its commit and
 * subject ("main at 3a3d44854de8 \"fs: ...\""), an imported build as its release and where it
 * came from; else the store id (a Debian package's is its ABI and flavour already).
 */
void summary_kernel_words(struct text *t, json_t *side)
{
	json_t *k = json_object_get(side, "kernel"), *src = json_object_get(k, "source");
	json_t *git = json_object_get(src, "git");
	const char *id = jget_str(side, "kernel_id");

	if (json_is_object(git) && strlen(jget_str(git, "commit")) >= 12) {
		const char *rev = jget_str(git, "rev"), *commit = jget_str(git, "commit");
		size_t np = json_array_size(json_object_get(src, "patches"));

		if (*rev && strncmp(commit, rev, strlen(rev)))
			text_add(t, "%s at ", rev);
		text_add(t, "%.12s \"%s\"", commit, jget_str(git, "subject"));
		if (np)
			text_add(t, " + %zu patch%s", np, np > 1 ? "es" : "");
		text_add(t, " [%s]", id);
	} else if (!strcmp(jget_str(src, "type"), "import") && *jget_str(k, "release")) {
		text_add(t, "%s (imported from %s) [%s]", jget_str(k, "release"),
			 jget_str(src, "path"), id);
	} else {
		text_add(t, "%s", id);
	}
}

char *summary_kernel_id_words(const char *id)
{
	char *p = xasprintf("%s/images/kernels/%s/kernel.json", kpair_root(), id);
	json_t *kj = *id && path_exists(p) ? json_load_file(p, 0, NULL) : NULL, *side;
	struct text t = { 0 };

	side = json_pack("{s:s, s:o}", "kernel_id", id, "kernel", kj ? kj : json_null());
	summary_kernel_words(&t, side);
	json_decref(side);
	free(p);
	return t.s ? t.s : xstrdup(id);
}

/* "compared: stock 6.1.0-57-amd64; patched 6.1.0-57-amd64 with job.cmdline=..." */
static char *sides_sentence(json_t *sides, const char *la, const char *lb)
{
	struct text t = { 0 };
	json_t *s, *v;
	size_t i;
	int k;

	text_add(&t, "compared:");
	for (k = 0; k < 2; k++) {
		s = json_object_get(sides, k ? "patched" : "stock");
		text_add(&t, "%s %s ", k ? ";" : "", k ? lb : la);
		summary_kernel_words(&t, s);
		json_array_foreach(json_object_get(s, "sets"), i, v)
			text_add(&t, "%s%s", i ? ", " : " with ", json_string_value(v));
	}
	return t.s;
}

/* append @s (malloc'd, freed here) to @a */
static void add(json_t *a, char *s)
{
	json_array_append_new(a, json_string(s));
	free(s);
}

/* "no patched run ended ok (kernel-panic: ...)" when a side has failures and no good run */
static char *no_good_side(json_t *cmp, const char *la, const char *lb)
{
	json_t *f = json_object_get(cmp, "failures");
	int k;

	for (k = 0; k < 2; k++) {
		json_t *s = json_object_get(f, k ? "patched" : "stock");

		if (json_integer_value(json_object_get(s, "failed")) > 0 &&
		    json_integer_value(json_object_get(s, "ok")) == 0)
			return xasprintf("no verdict: no %s run ended ok (%s)", k ? lb : la,
					 jget_str(s, "first_failure"));
	}
	return NULL;
}

json_t *summary_lines(json_t *cmp)
{
	json_t *out = json_array(), *metrics = json_object_get(cmp, "metrics"), *m;
	json_t *claim = json_object_get(cmp, "claim");
	int aa = !strcmp(jget_str(cmp, "kind"), "calibrate");
	const char *la = aa ? "A" : "stock", *lb = aa ? "A'" : "patched", *name;
	long long fa = (long long)json_integer_value(json_object_get(cmp, "failed_a"));
	long long fb = (long long)json_integer_value(json_object_get(cmp, "failed_b"));

	{
		char *none = no_good_side(cmp, la, lb);

		add(out, none ? none : headline(metrics, jget_num(cmp, "threshold"), la, lb, aa));
	}
	json_object_foreach(metrics, name, m)
		if (perf(m))
			add(out, metric_sentence(name, m, la, lb));
	if (claim)
		json_array_append_new(out, json_sprintf("claim (%s): %s: %s", jget_str(claim, "source"),
							jget_str(claim, "result"), jget_str(claim, "why")));
	if (fa || fb) {
		json_array_append_new(out, json_sprintf("failed runs: %lld %s, %lld %s (left out of "
							"the statistics; their result.json say why)",
							fa, la, fb, lb));
		if (json_is_object(json_object_get(cmp, "failures")))
			json_array_append_new(out, json_sprintf("failures: %s", jget_str(
				json_object_get(cmp, "failures"), "why")));
	} else
		json_array_append_new(out, json_string("failed runs: none"));
	if (json_is_object(json_object_get(cmp, "sides")))
		add(out, sides_sentence(json_object_get(cmp, "sides"), la, lb));
	if (json_is_object(json_object_get(cmp, "job")))
		add(out, mode_sentence(json_object_get(cmp, "job")));
	if (json_is_string(json_object_get(cmp, "command")))
		json_array_append_new(out, json_sprintf("rerun: %s", jget_str(cmp, "command")));
	return out;
}

void summary_print(json_t *lines)
{
	json_t *l;
	size_t i;

	json_array_foreach(lines, i, l) {
		const char *s = json_string_value(l);

		if (!strncmp(s, "rerun: ", 7))
			printf("  %s\n", s);	/* unwrapped: it is copied into a shell */
		else
			print_wrapped(xasprintf("%s%s", i ? "  " : "", s));
	}
}
