/* t-history.c - a night's junit.xml and the trend page with one night, constant, zero and
 * extreme metrics: numbers or "-", never "nan", and every trend plot drawn */
#include "unit.h"
#include <jansson.h>
#include "history.h"
#include "util.h"

/* one night, one entry: a constant metric, an all-zero one (no ratio) and a 10^5 x change */
static json_t *night(void)
{
	json_t *n = json_loads(
		"{\"format\": \"kpair-nightly/1\", \"name\": \"unit\", \"date\": \"2026-12-04\","
		" \"started\": \"2026-12-04T02:00:00Z\", \"wall_s\": null, \"entries\": [{"
		" \"key\": \"smoke\", \"status\": \"regressed\", \"dir\": \"smoke\", \"kernel\": \"k2\","
		" \"baseline\": {\"kernel\": \"k1\", \"night\": \"2026-12-03\"}, \"metrics\": {"
		"  \"write_s\": {\"unit\": \"s\", \"verdict\": \"no-change\", \"why\": \"w\","
		"   \"median_a\": 0.5, \"median_b\": 0.5, \"ratio\": 1, \"ratio_ci_low\": 1,"
		"   \"ratio_ci_high\": 1, \"p_adjusted\": 1, \"n_a\": 5, \"n_b\": 5},"
		"  \"zero_us\": {\"unit\": \"us\", \"verdict\": \"no-change\", \"why\": \"z\","
		"   \"median_a\": 0, \"median_b\": 0, \"ratio\": null, \"ratio_ci_low\": null,"
		"   \"ratio_ci_high\": null, \"p_adjusted\": 1, \"n_a\": 5, \"n_b\": 5},"
		"  \"huge_us\": {\"unit\": \"us\", \"verdict\": \"regressed\", \"why\": \"h\","
		"   \"median_a\": 5.05, \"median_b\": 506345, \"ratio\": 100266.3,"
		"   \"ratio_ci_low\": 97374.2, \"ratio_ci_high\": 103334.7, \"p_adjusted\": 0.0079,"
		"   \"n_a\": 5, \"n_b\": 5}}}]}", 0, NULL);

	assert_non_null(n);
	return n;
}

static void test_junit_extremes(void **state)
{
	char *dir = scratch_dir("history"), *path, *x;
	json_t *n = night();

	(void)state;
	assert_int_equal(history_write_night(dir, n), 0);
	path = xasprintf("%s/junit.xml", dir);
	assert_int_equal(read_file(path, &x, NULL), 0);
	if (strstr(x, "nan") || strstr(x, "inf%") || strstr(x, "inf,"))
		fail_msg("junit.xml has a NaN or infinity: %s", x);
	assert_contains(x, "time=\"0.0\"");	/* a night without wall_s */
	assert_contains(x, "huge_us regressed: 5.05 us -&gt; 506345 us (x100266, 95% CI x97374 to x103335)");
	assert_contains(x, "zero_us no-change: 0 us -&gt; 0 us (-, 95% CI - to -)");
	free(x);
	free(path);
	json_decref(n);
	free(dir);
}

static void test_trends_one_night(void **state)
{
	char *root = scratch_dir("history"), *path, *h, *p;
	json_t *index = history_load(root), *n = night();
	int svgs = 0;

	(void)state;
	assert_non_null(index);
	assert_int_equal(history_update(root, index, n), 0);
	path = xasprintf("%s/index.html", root);
	assert_int_equal(read_file(path, &h, NULL), 0);
	for (p = h; (p = strstr(p, "<svg")); p++)
		svgs++;
	if (svgs != 3)
		fail_msg("%d trend plots for 3 metrics: %s", svgs, h);
	assert_null(strstr(h, "plot-note"));
	assert_null(strstr(h, "nan"));
	assert_contains(h, "<b>regressed</b> x100266;");
	free(h);
	free(path);
	json_decref(n);
	json_decref(index);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_junit_extremes),
		cmocka_unit_test(test_trends_one_night),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
