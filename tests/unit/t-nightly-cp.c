/*
 * t-nightly-cp.c - the nightly's change points over a history on disk (harness/nightly-cp.c):
 * nights written as the nightly writes them (results/<date>/<key>/comparison.json with each
 * metric's raw samples, index.json's entries), tonight's entry judged against them:
 *   - two nights: the night's own A/B decides (a note says so, the status is the A/B's);
 *   - 6 nights at 100, then 130: night 7 alone (its A/B inconclusive) is not confirmed,
 *     night 8 confirms the step: regressed, the step from night 7 with its CI; night 9 sees
 *     the same step, already confirmed: passed, though its A/B against an old baseline
 *     would say regressed (not on every night after it);
 *   - only a night that showed no change may be a later night's baseline (not an
 *     inconclusive one);
 *   - a higher-is-better metric that rose: a change point confirmed, not a regression.
 */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nightly.h"
#include "spawn.h"
#include "util.h"

static char root[64];

static void rm_root(void)
{
	const char *argv[] = { "rm", "-rf", root, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;

	spawn_run(argv, 10000, &r);
	spawn_result_release(&r);
}

static void night(int day, const char *metric, double level)
{
	char *dir = xasprintf("%s/2026-03-%02d/smoke-x86_64", root, day), *p;
	json_t *v = json_array(), *c;
	int i;

	assert_int_equal(mkdir_p(dir, 0755), 0);
	for (i = 0; i < 6; i++)
		json_array_append_new(v, json_real(level * (1 + 0.002 * ((i * 7 + day * 3) % 5 - 2))));
	c = json_pack("{s:{s:{s:o}}}", "metrics", metric, "values_b", v);
	p = xasprintf("%s/comparison.json", dir);
	assert_int_equal(json_dump_file(c, p, 0), 0);
	json_decref(c);
	free(p);
	free(dir);
}

static json_t *entry(const char *metric, const char *better, const char *verdict, double ratio,
		     const char *status)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:{s:{s:s, s:s, s:f}}}", "key", "smoke-x86_64",
			 "dir", "smoke-x86_64", "status", status, "failed_runs", 0, "metrics", metric,
			 "better", better, "verdict", verdict, "ratio", ratio);
}

/* nights 1..@upto-1 into an index (their entries passed, with tonight's analysis kept) */
static json_t *judge(json_t *index, int day, json_t *e)
{
	char date[32];
	json_t *entries = json_array();

	snprintf(date, sizeof(date), "2026-03-%02d", day);
	json_object_set_new(e, "kernel", json_sprintf("k-%02d", day));
	json_array_append(entries, e);
	nightly_changepoints(index, root, date, entries);
	json_array_append_new(json_object_get(index, "nights"),
			      json_pack("{s:s, s:O}", "date", date, "entries", entries));
	json_decref(entries);
	return e;
}

static void test_history(void **state)
{
	json_t *index = json_pack("{s:[]}", "nights"), *e, *cp;
	int d;

	(void)state;
	strcpy(root, "/tmp/kpair-t-nightly-cp-XXXXXX");
	assert_non_null(mkdtemp(root));
	for (d = 1; d <= 2; d++)
		night(d, "write_s", 100);
	judge(index, 1, e = entry("write_s", "lower", "no-change", 1, "passed"));
	assert_true(json_is_true(json_object_get(e, "baseline_ok")));	/* no change: it may be one */
	json_decref(e);
	e = judge(index, 2, entry("write_s", "lower", "regressed", 1.01, "regressed"));
	cp = json_object_get(e, "changepoints");
	assert_non_null(json_object_get(cp, "note"));
	assert_string_equal(jget_str(e, "status"), "regressed");	/* the A/B's, as before */
	json_decref(e);
	for (d = 3; d <= 6; d++) {
		night(d, "write_s", 100);
		e = judge(index, d, entry("write_s", "lower", "inconclusive", 1, "passed"));
		assert_string_equal(jget_str(e, "status"), "passed");
		assert_false(json_is_true(json_object_get(e, "baseline_ok")));	/* inconclusive */
		assert_int_equal(json_array_size(json_object_get(json_object_get(e, "changepoints"),
								 "new")), 0);
		json_decref(e);
	}
	night(7, "write_s", 130);
	e = judge(index, 7, entry("write_s", "lower", "inconclusive", 1.3, "passed"));
	assert_string_equal(jget_str(e, "status"), "passed");	/* one night alone, A/B unsure */
	json_decref(e);
	night(8, "write_s", 130);
	e = judge(index, 8, entry("write_s", "lower", "inconclusive", 1.0, "passed"));
	cp = json_array_get(json_object_get(json_object_get(e, "changepoints"), "new"), 0);
	assert_string_equal(jget_str(e, "status"), "regressed");
	assert_string_equal(jget_str(cp, "kind"), "step");
	assert_string_equal(jget_str(cp, "night_label"), "2026-03-07");
	assert_true(jget_num(cp, "ci_low") < 1.3 && jget_num(cp, "ci_high") > 1.3);
	assert_true(strstr(jget_str(e, "reason"), "write_s step +30.0 %") != NULL);
	/* the kernels on either side: the last night at the old level, the first at the new */
	assert_string_equal(jget_str(json_object_get(cp, "before"), "night"), "2026-03-06");
	assert_string_equal(jget_str(json_object_get(cp, "before"), "kernel"), "k-06");
	assert_string_equal(jget_str(json_object_get(cp, "after"), "night"), "2026-03-07");
	assert_string_equal(jget_str(json_object_get(cp, "after"), "kernel"), "k-07");
	{
		/* nightly.bisect = auto on a package nightly: those two, named, nothing built */
		struct nightly n;
		json_t *entries = json_pack("[O]", e), *b;
		char *ndir = xasprintf("%s/2026-03-08", root);

		nightly_init(&n);
		n.package = xstrdup("debian:6.1.0-57-amd64");
		n.branch = xstrdup("");
		n.patches = xstrdup("");
		n.series = xstrdup("");
		nightly_bisect(&n, ndir, entries);
		b = json_object_get(e, "bisect");
		assert_string_equal(jget_str(b, "kind"), "packages");
		assert_string_equal(jget_str(b, "metric"), "write_s");
		assert_string_equal(jget_str(json_object_get(b, "good"), "kernel"), "k-06");
		assert_string_equal(jget_str(json_object_get(b, "bad"), "kernel"), "k-07");
		assert_true(strstr(jget_str(b, "why"), "(2026-03-06) and") != NULL);
		free(n.package);
		free(n.branch);
		free(n.patches);
		free(n.series);
		free(ndir);
		json_decref(entries);
	}
	json_decref(e);
	night(9, "write_s", 130);
	e = judge(index, 9, entry("write_s", "lower", "regressed", 1.3, "regressed"));
	assert_string_equal(jget_str(e, "status"), "passed");
	assert_string_equal(jget_str(e, "ab_status"), "regressed");
	assert_int_equal(json_array_size(json_object_get(json_object_get(json_object_get(
		json_object_get(e, "changepoints"), "metrics"), "write_s"), 0)), 0);
	assert_int_equal(json_array_size(json_object_get(json_object_get(json_object_get(e,
		"changepoints"), "metrics"), "write_s")), 1);
	json_decref(e);
	json_decref(index);
	rm_root();
}

static void test_better_higher(void **state)
{
	json_t *index = json_pack("{s:[]}", "nights"), *e, *cp;
	int d;

	(void)state;
	strcpy(root, "/tmp/kpair-t-nightly-cp-XXXXXX");
	assert_non_null(mkdtemp(root));
	for (d = 1; d <= 7; d++) {	/* 120 from night 6: confirmed on night 7 */
		night(d, "bw", d <= 5 ? 100 : 120);
		e = judge(index, d, entry("bw", "higher", "inconclusive", 1, "passed"));
		if (d < 7)
			json_decref(e);
	}
	cp = json_array_get(json_object_get(json_object_get(e, "changepoints"), "new"), 0);
	assert_non_null(cp);
	assert_false(json_is_true(json_object_get(cp, "worse")));
	assert_string_equal(jget_str(e, "status"), "passed");
	json_decref(e);
	json_decref(index);
	rm_root();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_better_higher),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
