/*
 * t-util.c - unit tests of the harness helpers that guard against hostile
 * input and leftovers (harness/util.c): temporary directories (mkdtemp,
 * 0700, stale ones from killed processes removed), UTF-8 validation, plain
 * names, paths that must stay inside the project, error_last(), and the
 * stat-keyed stamps that spare a run re-hashing its kernel image.
 */
#include <sys/stat.h>

#include "spawn.h"
#include "unit.h"
#include "util.h"

static void test_temp_dir(void **state)
{
	char *dir = scratch_dir("t-util"), *a, *b, *stale, *keep;
	struct stat st;

	(void)state;
	assert_true(asprintf(&stale, "%s/.tmp-k-old123", dir) > 0);
	assert_true(asprintf(&keep, "%s/.tmp-other-1", dir) > 0);
	assert_int_equal(mkdir(stale, 0755), 0);
	assert_int_equal(mkdir(keep, 0755), 0);
	free(scratch_write(stale, "junk", "x", 1));
	a = make_temp_dir(dir, "k");
	assert_non_null(a);
	assert_int_equal(stat(a, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(strncmp(a, dir, strlen(dir)), 0);
	assert_contains(a, "/.tmp-k-");
	assert_false(path_exists(stale));	/* a dead process's leftover is gone */
	assert_true(path_exists(keep));		/* another name's is not */
	/* under the lock every earlier .tmp-k-* is a leftover: the next call removes a too */
	b = make_temp_dir(dir, "k");
	assert_non_null(b);
	assert_string_not_equal(a, b);
	assert_false(path_exists(a));
	assert_true(path_exists(b));
	assert_int_equal(rm_rf(dir), 0);
	free(a);
	free(b);
	free(stale);
	free(keep);
	free(dir);
}

static void test_temp_dir_fails(void **state)
{
	struct capture c;
	char *err, *d;

	(void)state;
	capture_start(&c);
	d = make_temp_dir("/nonexistent/kpair", "k");
	err = capture_end(&c);
	assert_null(d);
	assert_contains(err, "kpair: cannot create a temporary directory '/nonexistent/kpair/.tmp-k-");
	assert_contains(err, "': No such file or directory");
	assert_contains(error_last(), "cannot create a temporary directory");
	free(err);
}

static void test_utf8(void **state)
{
	static const struct {
		const char *s;
		long bad;	/* -1: valid */
	} cases[] = {
		{ "plain ascii = 1", -1 }, { "caf\xc3\xa9", -1 }, { "\xe2\x82\xac 5", -1 },
		{ "\xf0\x9f\x90\xa7", -1 }, { "\xef\xbb\xbf[job]", -1 }, { "", -1 },
		{ "caf\xe9", 3 }, { "\xc3", 0 }, { "ab\xc3(", 2 }, { "\xc0\xaf", 0 },
		{ "\xe0\x80\xaf", 0 }, { "\xed\xa0\x80", 0 }, { "\xf4\x90\x80\x80", 0 },
		{ "\xff", 0 }, { "\x80x", 0 }, { "ok\xf0\x9f\x90", 2 }, { "\xf8\x88\x80\x80\x80", 0 },
	};
	size_t i, bad;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = utf8_check(cases[i].s, strlen(cases[i].s), &bad);

		if (cases[i].bad < 0 && r != 0)
			fail_msg("case %zu: valid UTF-8 refused at %zu", i, bad);
		if (cases[i].bad >= 0 && (r != -1 || bad != (size_t)cases[i].bad))
			fail_msg("case %zu: want bad at %ld, got %d/%zu", i, cases[i].bad, r, bad);
	}
}

static void test_names(void **state)
{
	static const char *const good[] = { "smoke", "seed000-pread-ext3-1k", "a", "v1.2_x+y",
					     "6.1.0-57-amd64" };
	static const char *const bad[] = { "", ".", "..", ".hidden", "-rf", "a/b", "../../etc",
					   "my job", "tab\tx", "caf\xc3\xa9", "x\n",
					   "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!name_ok(good[i]))
			fail_msg("'%s' refused", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (name_ok(bad[i]))
			fail_msg("'%s' accepted", bad[i]);
}

static void test_paths(void **state)
{
	char *root = scratch_dir("t-util-root"), *outside = scratch_dir("t-util-out");
	char *link, *inside, *abs_in, *abs_out, why[512];

	(void)state;
	setenv("KPAIR_ROOT", root, 1);
	kpair_set_root(NULL);
	assert_true(asprintf(&link, "%s/escape", root) > 0);
	assert_int_equal(symlink(outside, link), 0);
	assert_true(asprintf(&inside, "%s/configs", root) > 0);
	assert_int_equal(mkdir(inside, 0755), 0);
	assert_true(asprintf(&abs_in, "%s/configs/x.patch", root) > 0);
	assert_true(asprintf(&abs_out, "%s/x.patch", outside) > 0);
	assert_int_equal(path_in_root("configs/x.patch", root, why, sizeof(why)), 0);
	assert_int_equal(path_in_root("configs", root, why, sizeof(why)), 0);
	assert_int_equal(path_in_root(abs_in, root, why, sizeof(why)), 0);
	assert_int_equal(path_in_root("a..b/c..", root, why, sizeof(why)), 0);
	assert_int_equal(path_in_root("../x", root, why, sizeof(why)), -1);
	assert_contains(why, "a '..' component leaves the project directory");
	assert_int_equal(path_in_root("configs/../../x", root, why, sizeof(why)), -1);
	assert_int_equal(path_in_root("configs/..", root, why, sizeof(why)), -1);
	assert_int_equal(path_in_root(abs_out, root, why, sizeof(why)), -1);
	assert_contains(why, "is outside the project directory");
	assert_int_equal(path_in_root("/etc/passwd", root, why, sizeof(why)), -1);
	/* through a symlink inside the project to a directory outside it */
	assert_int_equal(path_in_root("escape", root, why, sizeof(why)), -1);
	assert_contains(why, "'escape' is outside the project directory");
	/* a sibling whose name starts like the root is not inside it */
	{
		char *sib;

		assert_true(asprintf(&sib, "%sX/y", root) > 0);
		assert_int_equal(path_in_root(sib, NULL, why, sizeof(why)), -1);
		free(sib);
	}
	unsetenv("KPAIR_ROOT");
	assert_int_equal(rm_rf(root), 0);
	assert_int_equal(rm_rf(outside), 0);
	free(link);
	free(inside);
	free(abs_in);
	free(abs_out);
	free(root);
	free(outside);
}

static void test_error_last(void **state)
{
	struct capture c;
	char big[2000], *err;

	(void)state;
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	capture_start(&c);
	assert_int_equal(error("cannot open '%s': %s", "f", "No space left on device"), -1);
	err = capture_end(&c);
	assert_string_equal(err, "kpair: cannot open 'f': No space left on device\n");
	assert_string_equal(error_last(), "cannot open 'f': No space left on device");
	free(err);
	capture_start(&c);
	error("%s", big);
	err = capture_end(&c);
	assert_int_equal(strlen(err), strlen(big) + 8);	/* stderr gets all of it */
	assert_true(strlen(error_last()) < 512);		/* the kept copy is bounded */
	free(err);
}

/* a stamp is good for the file as it was, and for nothing after any change */
static void test_stamps(void **state)
{
	char *dir = scratch_dir("t-util-stamp"), *f, *stamp, *v, *path;
	struct capture c;
	char hex[65];

	(void)state;
	f = scratch_write(dir, "image", "abc\n", 4);
	assert_true(asprintf(&stamp, "%s/image.sha256", dir) > 0);

	/* a file changed within the racy window gets no stamp */
	stamp_racy_s = 2;
	stamp_put(stamp, f, "early");
	assert_null(stamp_get(stamp, f));
	assert_int_equal(access(stamp, F_OK), -1);

	stamp_racy_s = -1;
	stamp_put(stamp, f, "v1");
	v = stamp_get(stamp, f);
	assert_non_null(v);
	assert_string_equal(v, "v1");
	free(v);
	assert_null(stamp_get(stamp, "/nonexistent/file"));

	/* the digest: hashed once, then read from the stamp (no sha256sum on PATH) */
	path = strdup(getenv("PATH"));
	unlink(stamp);
	assert_int_equal(sha256_file_cached(f, hex), 0);
	assert_string_equal(hex, "edeaaff3f1774ad2888673770c6d64097e391bc362d7d6fb34982ddf0efd18cb");
	setenv("PATH", "/nonexistent", 1);
	memset(hex, 0, sizeof(hex));
	assert_int_equal(sha256_file_cached(f, hex), 0);
	assert_string_equal(hex, "edeaaff3f1774ad2888673770c6d64097e391bc362d7d6fb34982ddf0efd18cb");

	/* same size, other bytes, a timestamp tick later: the stamp no longer matches */
	usleep(20000);
	free(scratch_write(dir, "image", "abd\n", 4));
	v = stamp_get(stamp, f);
	assert_null(v);
	capture_start(&c);
	assert_int_equal(sha256_file_cached(f, hex), -1);
	free(capture_end(&c));
	setenv("PATH", path, 1);
	assert_int_equal(sha256_file_cached(f, hex), 0);
	assert_string_equal(hex, "b10bd3130c1c0c13552e64356445290992346ad995cc5c1388a1e6150bc21c07");

	/* a torn or foreign stamp is a miss */
	free(scratch_write(dir, "image.sha256", "garbage\n", 8));
	assert_null(stamp_get(stamp, f));
	stamp_racy_s = 2;
	free(path);
	free(stamp);
	free(f);
	free(dir);
}

static void test_path_lookup(void **state)
{
	char *p;

	(void)state;
	p = path_lookup("sh");
	assert_true(p[0] == '/');
	assert_int_equal(access(p, X_OK), 0);
	free(p);
	p = path_lookup("./x/y");
	assert_string_equal(p, "./x/y");
	free(p);
	p = path_lookup("kpair-no-such-binary");
	assert_string_equal(p, "kpair-no-such-binary");
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_temp_dir),
		cmocka_unit_test(test_temp_dir_fails),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_error_last),
		cmocka_unit_test(test_stamps),
		cmocka_unit_test(test_path_lookup),
	};

	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
