/*
 * t-bench.c - unit tests of the user's own benchmarks: the guest's reading of
 * fio's JSON (guest/wl-fiojob.c: fiojob_report, fed a real fio 3.33 output of
 * tests/boot/jobs/fio-two-jobs.fio and hand-made broken ones) and the host's
 * scan of fio job files (harness/bench-fio.c: what it refuses, at which line);
 * the command workload's output contract (guest/wl-command.c: command_report).
 * Run from the project directory (make check does): it reads tests/unit/data/.
 */
#include <fcntl.h>
#include <stdint.h>

#include "unit.h"

#include "bench.h"
#include "record.h"
#include "util.h"
#include "workload.h"

static char *dir;

static int group_setup(void **state)
{
	(void)state;
	dir = scratch_dir("t-bench");
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	free(dir);
	return 0;
}

/* fiojob_report on @json; its return in *ret, the records it sent (caller frees) */
static char *report(const char *json, size_t len, int *ret)
{
	FILE *f = tmpfile();
	char *text;
	long n;

	assert_non_null(f);
	rec_set_fd(fileno(f));
	*ret = fiojob_report(json, len);
	rec_set_fd(-1);
	n = lseek(fileno(f), 0, SEEK_END);
	assert_true(n >= 0);
	text = calloc(1, n + 1);
	assert_non_null(text);
	assert_int_equal(pread(fileno(f), text, n, 0), n);
	fclose(f);
	return text;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

static void test_two_jobs(void **state)
{
	char *json = NULL, *rec;
	size_t len;
	int ret;

	(void)state;
	assert_int_equal(read_file("tests/unit/data/fio-two-jobs.json", &json, &len), 0);
	rec = report(json, len, &ret);
	assert_int_equal(ret, 0);
	/* both jobs, fio's byte counts, the direction each one did */
	assert_contains(rec, "\"metric\":\"writer.write.io_bytes\",\"unit\":\"B\",\"value\":2097152}");
	assert_contains(rec, "\"metric\":\"reader.read.io_bytes\",\"unit\":\"B\",\"value\":2097152}");
	assert_contains(rec, "\"metric\":\"writer.write.bw\",\"unit\":\"KiB/s\"");
	assert_contains(rec, "\"metric\":\"reader.read.iops\",\"unit\":\"ops/s\"");
	assert_contains(rec, "\"metric\":\"writer.write.clat_ns.p50\",\"unit\":\"ns\",\"value\":14400}");
	assert_contains(rec, "\"metric\":\"writer.write.clat_ns.p99\",\"unit\":\"ns\",\"value\":44288}");
	assert_contains(rec, "\"metric\":\"writer.write.clat_ns.p99.9\",\"unit\":\"ns\"");
	assert_contains(rec, "\"metric\":\"reader.read.runtime\",\"unit\":\"ms\"");
	assert_contains(rec, "\"metric\":\"reader.sys_cpu\",\"unit\":\"%\"");
	/* nothing for the directions a job did not do, nor for syncs it did not issue */
	assert_null(strstr(rec, "writer.read."));
	assert_null(strstr(rec, "reader.write."));
	assert_null(strstr(rec, ".trim."));
	assert_null(strstr(rec, ".sync."));
	assert_int_equal(count(rec, "\"type\":\"sample\""), 2 * (8 + 2));
	assert_int_equal(count(rec, "\"type\":\"error\""), 0);
	free(rec);
	free(json);
}

#define DIRS(r, w) "\"read\":{\"total_ios\":" #r ",\"io_bytes\":" #r "},\"write\":{\"total_ios\":" \
	#w ",\"io_bytes\":" #w "},\"trim\":{\"total_ios\":0},\"sync\":{\"total_ios\":0}"

static void test_names(void **state)
{
	/* a note before the JSON; the same name twice; a name with characters metrics do not take */
	static const char json[] = "note: both jobs\n{\"jobs\":["
		"{\"jobname\":\"seq\",\"error\":0," DIRS(5, 0) "},"
		"{\"jobname\":\"seq\",\"error\":0," DIRS(7, 0) "},"
		"{\"jobname\":\"a b/c\",\"error\":0," DIRS(0, 9) "}]}";
	char *rec;
	int ret;

	(void)state;
	rec = report(json, sizeof(json) - 1, &ret);
	assert_int_equal(ret, 0);
	assert_contains(rec, "\"metric\":\"seq.read.io_bytes\",\"unit\":\"B\",\"value\":5}");
	assert_contains(rec, "\"metric\":\"seq_2.read.io_bytes\",\"unit\":\"B\",\"value\":7}");
	assert_contains(rec, "\"metric\":\"a_b_c.write.io_bytes\",\"unit\":\"B\",\"value\":9}");
	free(rec);
}

static void test_bad_output(void **state)
{
	static const struct {
		const char *json, *msg;
	} cases[] = {
		{ "fio: engine libaio not loadable\n", "fio printed no JSON" },
		{ "{\"jobs\":[{\"jobname\":\"x\",", "does not parse near byte" },
		{ "{\"jobs\":[]}", "fio's JSON has no jobs" },
		{ "{\"jobs\":[{\"jobname\":\"x\",\"error\":28," DIRS(0, 1) "}]}",
		  "fio job x: error 28 (No space left on device)" },
		{ "{\"jobs\":[{\"jobname\":\"x\",\"error\":0,\"mixed\":{\"total_ios\":3}}]}",
		  "no read or write total_ios for job x" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret;
		char *rec = report(cases[i].json, strlen(cases[i].json), &ret);

		assert_int_equal(ret, -1);
		assert_contains(rec, "\"type\":\"error\"");
		assert_contains(rec, cases[i].msg);
		assert_null(strstr(rec, "\"type\":\"sample\""));
		free(rec);
	}
}

/* command_report on a copy of @out; its return in *ret, the records it sent */
static char *cmd_report(const char *out, int *ret)
{
	char *copy = strdup(out), *text;
	FILE *f = tmpfile();
	long n;

	assert_non_null(copy);
	assert_non_null(f);
	rec_set_fd(fileno(f));
	*ret = command_report(copy, strlen(copy));
	rec_set_fd(-1);
	n = lseek(fileno(f), 0, SEEK_END);
	text = calloc(1, n + 1);
	assert_non_null(text);
	assert_int_equal(pread(fileno(f), text, n, 0), n);
	fclose(f);
	free(copy);
	return text;
}

static void test_command_contract(void **state)
{
	char *rec;
	int ret;

	(void)state;
	rec = cmd_report("starting\nkpair-metric ops 1000 ops/s\n"
			 "kpair-metric\tlat 1.5e3\tns\n"
			 "kpair-metric score 42 points higher\n"
			 "kpair-metric cost -7.25 widgets lower\n"
			 "kpair-metrics not 1 mine\n  kpair-metric indented 1 s\n"
			 "kpair-metric last 3 s", &ret);
	assert_int_equal(ret, 0);
	assert_contains(rec, "\"metric\":\"ops\",\"unit\":\"ops/s\",\"value\":1000}");
	assert_contains(rec, "\"metric\":\"lat\",\"unit\":\"ns\",\"value\":1500}");
	assert_contains(rec, "\"metric\":\"score\",\"unit\":\"points\",\"value\":42,\"better\":\"higher\"}");
	assert_contains(rec, "\"metric\":\"cost\",\"unit\":\"widgets\",\"value\":-7.25,\"better\":\"lower\"}");
	assert_contains(rec, "\"metric\":\"last\",\"unit\":\"s\",\"value\":3}");
	/* the program's own lines, near misses included, are left alone */
	assert_null(strstr(rec, "\"not\""));
	assert_null(strstr(rec, "indented"));
	assert_int_equal(count(rec, "\"type\":\"sample\""), 5);
	free(rec);
}

static void test_command_bad_lines(void **state)
{
	static const struct {
		const char *out, *msg;
	} cases[] = {
		{ "ok\nkpair-metric x notanumber s\n",
		  "stdout line 2: 'kpair-metric x notanumber s': VALUE: not a finite number" },
		{ "kpair-metric x 1e999 s\n", "VALUE: not a finite number" },
		{ "kpair-metric x nan s\n", "VALUE: not a finite number" },
		{ "kpair-metric x 12abc s\n", "VALUE: not a finite number" },
		{ "kpair-metric x 1\n", "stdout line 1: 'kpair-metric x 1': expected NAME VALUE UNIT" },
		{ "kpair-metric\n", "expected NAME VALUE UNIT" },
		{ "kpair-metric x 1 s lower extra\n", "more than NAME VALUE UNIT [lower|higher]" },
		{ "kpair-metric x 1 s better\n", "the last word is lower or higher" },
		{ "kpair-metric a/b 1 s\n", "NAME: 1-48 of [A-Za-z0-9_.-]" },
		{ "kpair-metric command.elapsed_s 1 s\n", "not command.*" },
		{ "kpair-metric x 1 s\xff\n", "'kpair-metric x 1 s?': UNIT: 1-16" },
		{ "kpair-metric x 1 seconds-and-more-than-16\n", "UNIT: 1-16" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret;
		char *rec = cmd_report(cases[i].out, &ret);

		assert_int_equal(ret, -1);
		assert_contains(rec, cases[i].msg);
		assert_null(strstr(rec, "\"type\":\"sample\""));
		free(rec);
	}
}

/* command_extract on @out; its return in *ret, the records it sent */
static char *extract(const char *out, const char *match, const char *metric, int *ret)
{
	FILE *f = tmpfile();
	char *text;
	long n;

	assert_non_null(f);
	rec_set_fd(fileno(f));
	*ret = command_extract(out, strlen(out), match, metric);
	rec_set_fd(-1);
	n = lseek(fileno(f), 0, SEEK_END);
	text = calloc(1, n + 1);
	assert_non_null(text);
	assert_int_equal(pread(fileno(f), text, n, 0), n);
	fclose(f);
	return text;
}

static void test_host_extract(void **state)
{
	/* perf bench sched pipe, as perf 6.1 prints it */
	static const char perf[] = "# Running 'sched/pipe' benchmark:\n"
		"# Executed 10000 pipe operations between two processes\n\n"
		"     Total time: 0.697 [sec]\n\n      69.748900 usecs/op\n          14337 ops/sec\n"
		"delta -3.5e2 widgets\n";
	static const struct {
		const char *match, *metric, *rec;
	} good[] = {
		{ "usecs/op", "pipe_us us lower",
		  "\"metric\":\"pipe_us\",\"unit\":\"us\",\"value\":69.7489,\"better\":\"lower\"}" },
		{ "Total time:", "total s", "\"metric\":\"total\",\"unit\":\"s\",\"value\":0.697}" },
		{ "ops/sec", "rate ops/s higher", "\"metric\":\"rate\",\"unit\":\"ops/s\",\"value\":14337," },
		{ "Executed", "n ops", "\"metric\":\"n\",\"unit\":\"ops\",\"value\":10000}" },
		{ "delta", "d widgets", "\"value\":-350}" },
	};
	static const struct {
		const char *match, *metric, *msg;
	} bad[] = {
		{ "no such text", "x s", "no stdout line has 'no such text' (match)" },
		{ "Running", "x s", "has 'Running' but no number" },
		{ "usecs/op", "x s sideways", "metric 'x s sideways': the last word is lower or higher" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		int ret;
		char *rec = extract(perf, good[i].match, good[i].metric, &ret);

		assert_int_equal(ret, 0);
		assert_contains(rec, good[i].rec);
		assert_int_equal(count(rec, "\"type\":\"sample\""), 1);
		free(rec);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int ret;
		char *rec = extract(perf, bad[i].match, bad[i].metric, &ret);

		assert_int_equal(ret, -1);
		assert_contains(rec, bad[i].msg);
		assert_null(strstr(rec, "\"type\":\"sample\""));
		free(rec);
	}
}

/* stressng_report on a copy of @yaml for @stressor; its return in *ret, the records sent */
static char *sng_report(const char *yaml, const char *stressor, int *ret)
{
	char *copy = strdup(yaml), *text;
	FILE *f = tmpfile();
	long n;

	assert_non_null(copy);
	assert_non_null(f);
	rec_set_fd(fileno(f));
	*ret = stressng_report(copy, strlen(copy), stressor);
	rec_set_fd(-1);
	n = lseek(fileno(f), 0, SEEK_END);
	text = calloc(1, n + 1);
	assert_non_null(text);
	assert_int_equal(pread(fileno(f), text, n, 0), n);
	fclose(f);
	free(copy);
	return text;
}

static void test_stressng_yaml(void **state)
{
	static const char entry[] = "metrics:\n    - stressor: pipe\n      bogo-ops: 10\n"
		"      bogo-ops-per-second-usr-sys-time: 5\n      bogo-ops-per-second-real-time: 4\n"
		"      wall-clock-time: 2.5\n      user-time: 0.5\n      system-time: 1\n";
	static const struct {
		const char *yaml, *stressor, *msg;
	} bad[] = {
		{ "---\nsystem-info:\n  x: 1\n...\n", "pipe", "stress-ng's YAML has no metrics for pipe" },
		{ "metrics:\n    - stressor: fork\n      bogo-ops: 1\n", "pipe",
		  "YAML line 2: stressor 'fork', expected 'pipe'" },
		{ "metrics:\n    - stressor: pipe\n      bogo-ops: many\n", "pipe",
		  "YAML line 3: bogo-ops: 'many' is not a number" },
		{ "metrics:\n    - stressor: pipe\n      bogo-ops: 1\n", "pipe",
		  "stress-ng's YAML has no bogo-ops-per-second-real-time for pipe" },
		{ "metrics:\n    - stressor: pipe\n      just text\n", "pipe",
		  "YAML line 3: 'just text': not a 'key: number' of a stressor" },
		{ "metrics:\n    - stressor: pipe\n    - stressor: pipe\n", "pipe",
		  "YAML line 3: a second stressor 'pipe'" },
	};
	char *yaml = NULL, *rec;
	size_t len, i;
	int ret;

	(void)state;
	/* a real stress-ng 0.15.06 --metrics --yaml of --pipe 1 --pipe-ops 20000 */
	assert_int_equal(read_file("tests/unit/data/stress-ng-pipe.yaml", &yaml, &len), 0);
	rec = sng_report(yaml, "pipe", &ret);
	assert_int_equal(ret, 0);
	assert_contains(rec, "\"metric\":\"pipe.bogo_ops\",\"unit\":\"ops\",\"value\":20000}");
	assert_contains(rec, "\"metric\":\"pipe.bogo_ops_s\",\"unit\":\"ops/s\",\"value\":458484.073}");
	assert_contains(rec, "\"metric\":\"pipe.bogo_ops_s_cpu\",\"unit\":\"ops/s\",\"value\":849509.408}");
	assert_contains(rec, "\"metric\":\"pipe.wall_s\",\"unit\":\"s\",\"value\":0.043622}");
	assert_contains(rec, "\"metric\":\"pipe.sys_s\",\"unit\":\"s\",\"value\":0.023418}");
	assert_int_equal(count(rec, "\"type\":\"sample\""), 6);
	free(rec);
	free(yaml);
	rec = sng_report(entry, "pipe", &ret);
	assert_int_equal(ret, 0);
	assert_contains(rec, "\"metric\":\"pipe.usr_s\",\"unit\":\"s\",\"value\":0.5}");
	free(rec);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		rec = sng_report(bad[i].yaml, bad[i].stressor, &ret);
		assert_int_equal(ret, -1);
		assert_contains(rec, bad[i].msg);
		assert_null(strstr(rec, "\"type\":\"sample\""));
		free(rec);
	}
}

/* the host's scan: fio_jobfile_check on @text; what it printed (caller frees) */
static char *scan(const char *text, int *ret)
{
	struct capture c;
	char *path = scratch_write(dir, "job.fio", text, strlen(text));

	capture_start(&c);
	*ret = fio_jobfile_check(path);
	free(path);
	return capture_end(&c);
}

static void test_scan_refusals(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "[a]\nfilename=/dev/vda\n", "job.fio:2: filename: '/dev/vda': an absolute path" },
		{ "[a]\n  FileName = a:/etc/passwd\n", "job.fio:2: filename: 'a:/etc/passwd': an absolute" },
		{ "[a]\nfilename=x\\:y:../z\n", "job.fio:2: filename: 'x\\:y:../z': a '..' component" },
		{ "[a]\nfilename=-\n", "stdin or stdout" },
		{ "[a]\nopendir=/usr\n", "job.fio:2: opendir: '/usr': an absolute path" },
		{ "[a]\nfilename_format=/tmp/$jobname\n", "job.fio:2: filename_format:" },
		{ "; c\n# c\n[a]\nexec_prerun=ls\n", "job.fio:4: exec_prerun: runs a shell command" },
		{ "[a]\ndirectory=.\n", "job.fio:2: directory: kpair sets directory=" },
		{ "[a]\nioengine=external:/x.so\n", "job.fio:2: ioengine: 'external:/x.so': not a local" },
		{ "[a]\nioengine=libaio\n", "no libaio" },
		{ "[a]\nioengine=sg\n", "ioengine: 'sg'" },
		{ "include x.fio\n[a]\n", "job.fio:1: include: include files are not copied" },
		{ "[a]\nsize=${SZ}\n", "job.fio:2: size: '${SZ}': environment variables" },
		{ "[a]\nwrite_lat_log=lat\n", "job.fio:2: write_lat_log:" },
		{ "[a]\nunified_rw_reporting=1\n", "job.fio:2: unified_rw_reporting:" },
		{ "rw=read\n", "no job section" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret;
		char *err = scan(cases[i].text, &ret);

		assert_int_equal(ret, -1);
		assert_contains(err, cases[i].msg);
		free(err);
	}
}

static void test_scan_every_line(void **state)
{
	int ret;
	char *err;

	(void)state;
	/* every bad line is reported, not the first alone; relative names pass */
	err = scan("[a]\nfilename=ok/data\nexec_prerun=a\n[b]\nexec_postrun=b\nfilename=/x\n", &ret);
	assert_int_equal(ret, -1);
	assert_contains(err, "job.fio:3: exec_prerun");
	assert_contains(err, "job.fio:5: exec_postrun");
	assert_contains(err, "job.fio:6: filename");
	assert_null(strstr(err, ":2:"));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_jobs),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_bad_output),
		cmocka_unit_test(test_scan_refusals),
		cmocka_unit_test(test_scan_every_line),
		cmocka_unit_test(test_command_contract),
		cmocka_unit_test(test_command_bad_lines),
		cmocka_unit_test(test_host_extract),
		cmocka_unit_test(test_stressng_yaml),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
