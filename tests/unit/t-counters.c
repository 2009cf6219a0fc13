/*
 * t-counters.c - what else changed (harness/counters-cmp.c): the kernel counters of each
 * run compared as a family of their own. Cases worked by hand:
 *   - 3 runs a side, a counter constant within each side (a jump in 3 of 6 runs that fell
 *     on one side): Welch's normal model calls it certain, the exact rank test gives 0.1
 *     (2/20): not called changed (the A/A false alarm of issue 28);
 *   - 6 runs a side, every run of one side above every run of the other by 8x: rank p
 *     2/924 = 0.0022, changed, with its medians; a counter moving within its own spread is not;
 *   - a counter missing from a run's record did not move (0).
 */
#include "unit.h"

#include <math.h>

#include "counters-cmp.h"

static json_t *runs(const char *key, const double *v, int n, const char *key2, const double *w)
{
	json_t *a = json_array();
	int i;

	for (i = 0; i < n; i++) {
		json_t *r = json_object();

		if (v[i])
			json_object_set_new(r, key, json_integer((json_int_t)v[i]));
		if (key2)
			json_object_set_new(r, key2, json_integer((json_int_t)w[i]));
		json_array_append_new(a, r);
	}
	return a;
}

static void test_split_jump_three_a_side(void **state)
{
	const double a[] = { 1200, 1200, 1200 }, b[] = { 1500, 1500, 1500 };
	json_t *ra = runs("vmstat.pgpgout", a, 3, NULL, NULL);
	json_t *rb = runs("vmstat.pgpgout", b, 3, NULL, NULL);
	json_t *c = counters_compare(ra, rb);

	(void)state;
	assert_int_equal(json_integer_value(json_object_get(c, "tested")), 1);
	assert_int_equal(json_array_size(json_object_get(c, "changed")), 0);
	json_decref(c);
	json_decref(ra);
	json_decref(rb);
}

static void test_clear_shift_six_a_side(void **state)
{
	const double a[] = { 100, 101, 102, 100, 103, 101 }, b[] = { 800, 805, 810, 802, 799, 801 };
	const double na[] = { 50, 60, 55, 52, 58, 61 }, nb[] = { 54, 57, 59, 51, 62, 56 };
	json_t *ra = runs("vmstat.nr_written", a, 6, "irq.LOC", na);
	json_t *rb = runs("vmstat.nr_written", b, 6, "irq.LOC", nb);
	json_t *c = counters_compare(ra, rb), *ch = json_object_get(c, "changed"), *r;

	(void)state;
	assert_int_equal(json_integer_value(json_object_get(c, "tested")), 2);
	assert_int_equal(json_array_size(ch), 1);
	r = json_array_get(ch, 0);
	assert_string_equal(json_string_value(json_object_get(r, "counter")), "vmstat.nr_written");
	assert_true(fabs(json_real_value(json_object_get(r, "stock")) - 101) < 1e-9);
	assert_true(fabs(json_real_value(json_object_get(r, "patched")) - 801.5) < 1e-9);
	assert_true(fabs(json_real_value(json_object_get(r, "p")) - 2.0 / 924) < 1e-9);
	json_decref(c);
	json_decref(ra);
	json_decref(rb);
}

static void test_missing_is_zero(void **state)
{
	const double a[] = { 0, 0, 0, 0, 0, 0 }, b[] = { 40, 41, 40, 42, 43, 40 };
	json_t *ra = runs("block.writes", a, 6, NULL, NULL);
	json_t *rb = runs("block.writes", b, 6, NULL, NULL);
	json_t *c = counters_compare(ra, rb);

	(void)state;
	assert_int_equal(json_array_size(json_object_get(c, "changed")), 1);
	json_decref(c);
	json_decref(ra);
	json_decref(rb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_jump_three_a_side),
		cmocka_unit_test(test_clear_shift_six_a_side),
		cmocka_unit_test(test_missing_is_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
