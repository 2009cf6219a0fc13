/*
 * t-summary.c - the summary's "compared:" line names kernels in the user's words
 * (harness/summary.c): a git build as the revision given, its commit and subject; a bisect's
 * full hash as the commit alone; an imported build as its release and path; a Debian
 * package as its id. The store id stays in brackets, for kpair's own commands.
 */
#include "unit.h"

#include <string.h>

#include "summary.h"

static const char *compared(json_t *lines)
{
	json_t *l;
	size_t i;

	json_array_foreach(lines, i, l)
		if (!strncmp(json_string_value(l), "compared:", 9))
			return json_string_value(l);
	return "";
}

static void test_sides(void **state)
{
	json_t *cmp = json_pack(
		"{s:s, s:{}, s:{s:{s:s, s:{s:{s:s, s:{s:s, s:s, s:s}}}, s:[]},"
		" s:{s:s, s:{s:{s:s, s:{s:s, s:s, s:s}, s:[{}]}}, s:[s]}}}",
		"kind", "ab", "metrics", "sides",
		"stock", "kernel_id", "git-hlinux-f6c9d4204c83-x86_64-81856fec6c26", "kernel",
		"source", "type", "build", "git", "rev", "v6.1", "commit",
		"f6c9d4204c83aaaaaaaaaaaaaaaaaaaaaaaaaaaa", "subject", "Linux 6.1", "sets",
		"patched", "kernel_id", "git-hlinux-0123456789ab-x86_64-81856fec6c26", "kernel",
		"source", "type", "build", "git", "rev", "0123456789abcdef0123456789abcdef01234567",
		"commit", "0123456789abcdef0123456789abcdef01234567", "subject", "fs: slow fsync",
		"patches", "sets", "job.cmdline=quiet");
	json_t *lines = summary_lines(cmp);

	(void)state;
	assert_string_equal(compared(lines),
			    "compared: stock v6.1 at f6c9d4204c83 \"Linux 6.1\" "
			    "[git-hlinux-f6c9d4204c83-x86_64-81856fec6c26]; patched 0123456789ab "
			    "\"fs: slow fsync\" + 1 patch [git-hlinux-0123456789ab-x86_64-81856fec6c26]"
			    " with job.cmdline=quiet");
	json_decref(lines);
	json_decref(cmp);
}

static void test_import_and_package(void **state)
{
	json_t *cmp = json_pack("{s:s, s:{}, s:{s:{s:s, s:{s:s, s:{s:s, s:s}}, s:[]},"
				" s:{s:s, s:{s:{s:s}}, s:[]}}}",
				"kind", "ab", "metrics", "sides", "stock", "kernel_id",
				"import-6.1.192-67c54fd89bc3", "kernel", "release", "6.1.192",
				"source", "type", "import", "path", "/home/dev/build", "sets",
				"patched", "kernel_id", "6.1.0-57-amd64", "kernel", "source",
				"type", "debian-package", "sets");
	json_t *lines = summary_lines(cmp);

	(void)state;
	assert_string_equal(compared(lines),
			    "compared: stock 6.1.192 (imported from /home/dev/build) "
			    "[import-6.1.192-67c54fd89bc3]; patched 6.1.0-57-amd64");
	json_decref(lines);
	json_decref(cmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sides),
		cmocka_unit_test(test_import_and_package),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
