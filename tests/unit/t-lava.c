/*
 * t-lava.c - unit tests of the lava backend's host side (harness/backends/lava.c,
 * harness/backends/lava-run.c): a real LAVA job log (lava-server 2023.01, the smoke
 * job, tests/unit/data/lava-job.log) gives the channel the agent's six records
 * and console.log the console lines with the records unescaped; a record LAVA
 * cut or mangled stops the channel; the token file must be 0600 and the
 * options reject what they cannot use; the LAVA job of a run asks for the
 * machine kpair's own QEMU command line has; a job of six runs cuts into its runs' parts, and
 * one cut short tells the runs it booted from those it never reached; a job of three runs has
 * one context and each run's actions. Run from the project directory.
 */
#include <sys/stat.h>

#include "unit.h"

/* gcc 12 at -O2 takes the pointers into log_text()'s buffer for pointers to its local */
#pragma GCC diagnostic ignored "-Wdangling-pointer"

#include "backends/lava.h"
#include "backends/vm.h"
#include "channel.h"
#include "config.h"
#include "util.h"

struct seen {
	int types[4];
	double last_value;
};

static int count_cb(void *user, enum rec_type type, json_t *rec, const char *line, size_t len)
{
	struct seen *s = user;

	(void)line;
	(void)len;
	s->types[type]++;
	if (type == REC_SAMPLE)
		s->last_value = json_number_value(json_object_get(rec, "value"));
	return 0;
}

static char *log_file(const char *path)
{
	char *text;
	size_t len;

	assert_int_equal(read_file(path, &text, &len), 0);
	return text;
}

static char *log_text(void)
{
	return log_file("tests/unit/data/lava-job.log");
}

/* part @p's console into a fresh channel: its records counted */
static void part_records(struct lava_part *p, struct seen *seen, int *ended)
{
	struct text con = { 0 };
	struct channel ch;
	char *line, *next, *text = xstrdup(p->console.s ? p->console.s : "");

	memset(seen, 0, sizeof(*seen));
	channel_init(&ch, count_cb, seen);
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		if (!strncmp(line, "kpair-record: ", 14)) {
			struct text rec = { 0 };
			const char *q;

			for (q = line + 14; *q; q++) {	/* LAVA's \" */
				if (q[0] == '\\' && q[1] == '"')
					q++;
				text_add(&rec, "%c", *q);
			}
			text_add(&rec, "\n");
			channel_feed(&ch, rec.s, rec.len);
			free(rec.s);
		}
		*ended += !strncmp(line, "kpair-end", 9);
	}
	channel_end(&ch);
	free(text);
	free(con.s);
}

/*
 * A real job of six runs (lava-server 2023.01, an A/B's smoke runs, --lava-runs-per-job 6):
 * cut at LAVA's "start: N" lines into six parts, each with one run's records whole, hello to
 * done; the same log cut short in the fourth run's deploy (a job
 * that died there): three runs booted, the fourth reached but not booted, two never reached.
 */
static void test_log_parts(void **state)
{
	struct lava_part parts[6];
	struct seen seen;
	char *text = log_file("tests/unit/data/lava-job-6runs.log"), *cut;
	int i, ended = 0;

	(void)state;
	memset(parts, 0, sizeof(parts));
	assert_int_equal(lava_log_parts(text, parts, 6), 6);
	for (i = 0; i < 6; i++) {
		assert_true(parts[i].reached && parts[i].booted);
		part_records(&parts[i], &seen, &ended);
		assert_int_equal(seen.types[REC_HELLO], 1);
		assert_int_equal(seen.types[REC_SAMPLE], 4);
		assert_int_equal(seen.types[REC_DONE], 1);
		assert_string_equal(parts[i].error, "");
		free(parts[i].console.s);
	}
	/*
	 * each run's kpair-end, where LAVA logged it: the monitor matches it before its line
	 * ends, so the line may be logged in the next run's boot (with LAVA's "poweroff" after it)
	 */
	assert_int_equal(ended, 6);
	free(text);
	text = log_file("tests/unit/data/lava-job-6runs.log");
	cut = strstr(text, "\"start: 10 deployimages");
	assert_non_null(cut);
	cut = strchr(cut, '\n');
	cut[1] = '\0';
	memset(parts, 0, sizeof(parts));
	assert_int_equal(lava_log_parts(text, parts, 6), 4);
	for (i = 0; i < 6; i++) {
		assert_int_equal(parts[i].booted, i < 3);
		assert_int_equal(parts[i].reached, i < 4);
		ended = 0;
		part_records(&parts[i], &seen, &ended);
		assert_int_equal(seen.types[REC_DONE], i < 3);
		free(parts[i].console.s);
	}
	free(text);
}

/* three runs, one job: the context once, three deploys, boots and monitors ending on kpair-end */
static void test_job_of_three(void **state)
{
	struct target t;
	struct vm_spec s[3];
	const struct vm_spec *sp[3] = { &s[0], &s[1], &s[2] };
	char *tok[3] = { "", "", "" }, *job, *p;
	int i, n;

	(void)state;
	target_init(&t);
	assert_int_equal(target_load(&t, "x86_64"), 0);
	for (i = 0; i < 3; i++) {
		s[i] = (struct vm_spec){ .target = &t, .name = i ? "r1" : "r0", .kernel = i == 1 ? "/kb" : "/ka",
					 .initrd = "/i", .append = "console=ttyS0", .accel = "tcg",
					 .memory = 1ULL << 30, .cpus = 1, .boot_timeout = 10,
					 .workload_timeout = 20, .cpu = -1, .io_cpu = -1 };
		s[i].disks[0] = (struct vm_disk){ "/d.qcow2", "none", 0 };
		s[i].ndisks = 1;
	}
	job = lava_job_definition_many(sp, 3, tok);
	assert_non_null(job);
	for (n = 0, p = job; (p = strstr(p, "\ncontext:\n")); p++, n++)
		;
	assert_int_equal(n, 1);
	for (n = 0, p = job; (p = strstr(p, "\n- deploy:\n")); p++, n++)
		;
	assert_int_equal(n, 3);
	for (n = 0, p = job; (p = strstr(p, "\n- boot:\n")); p++, n++)
		;
	assert_int_equal(n, 3);
	for (n = 0, p = job; (p = strstr(p, "      end: 'kpair-end'\n")); p++, n++)
		;
	assert_int_equal(n, 3);
	assert_non_null(strstr(job, "url: 'file:///kb'"));
	assert_non_null(strstr(job, "job_name: 'kpair r0 and 2 more'"));
	assert_non_null(strstr(job, "format=qcow2,file={disk0}"));
	/* the job's deadline: three runs' (10 + 20 + 60 s) and three deploys' */
	assert_non_null(strstr(job, "  job:\n    seconds: 2070\n"));
	free(job);
	/* a run that wants other memory has another context: it cannot share the job */
	p = lava_job_context(&s[0]);
	s[2].memory = 2ULL << 30;
	job = lava_job_context(&s[2]);
	assert_string_not_equal(p, job);
	free(p);
	free(job);
	target_release(&t);
}

static void test_real_log(void **state)
{
	struct text con = { 0 };
	struct seen seen = { { 0 }, 0 };
	struct channel ch;
	char *text = log_text(), *out;
	size_t olen;
	FILE *log = tmpfile();
	long n;

	(void)state;
	channel_init(&ch, count_cb, &seen);
	n = lava_log_console(text, &ch, log, &con);
	assert_int_equal(channel_end(&ch), 0);
	assert_false(ch.failed);
	assert_int_equal(seen.types[REC_HELLO], 1);
	assert_int_equal(seen.types[REC_SAMPLE], 4);
	assert_int_equal(seen.types[REC_DONE], 1);
	assert_true(ch.got_done);
	assert_int_equal((long long)seen.last_value, 16777216);	/* read_bytes, the last sample */
	/* the console lines only: hello, started, 4 samples, done, 3 after it */
	assert_int_equal(n, 10);
	assert_non_null(strstr(con.s, "kpair-record: {\"type\":\"done\",\"seq\":5,"));
	assert_null(strstr(con.s, "\\\""));
	assert_null(strstr(con.s, "Boot command"));
	fflush(log);
	olen = (size_t)ftell(log);
	out = calloc(1, olen + 1);
	rewind(log);
	assert_int_equal(fread(out, 1, olen, log), olen);
	assert_string_equal(out, con.s);
	fclose(log);
	free(out);
	free(con.s);
	free(text);
}

/* a sample's value changed in the log: the record no longer fits; cut: the sequence breaks */
static void test_bad_records(void **state)
{
	struct text con = { 0 };
	struct seen seen = { { 0 }, 0 };
	struct channel ch;
	char *text = log_text(), *p, *q;
	FILE *log = tmpfile();

	(void)state;
	p = strstr(text, "value\\\\\\\":0.");	/* in the log: value\\\":0. */
	assert_non_null(p);
	p = strstr(p, ":0.");
	p[1] = 'x';
	channel_init(&ch, count_cb, &seen);
	lava_log_console(text, &ch, log, &con);
	assert_true(ch.failed);
	assert_int_equal(seen.types[REC_DONE], 0);
	free(text);
	free(con.s);
	con = (struct text){ 0 };

	text = log_text();
	q = strstr(text, "seq\\\\\\\":2,");	/* the second sample's line: not a console line now */
	assert_non_null(q);
	while (q > text && q[-1] != '\n')
		q--;
	q[0] = '#';
	memset(&seen, 0, sizeof(seen));
	channel_init(&ch, count_cb, &seen);
	lava_log_console(text, &ch, log, &con);
	assert_true(ch.failed);
	assert_non_null(strstr(ch.why, "seq"));
	fclose(log);
	free(con.s);
	free(text);
}

static void test_token_file(void **state)
{
	char path[] = "/tmp/kpair-t-lava-XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc123\n", 7), 7);
	close(fd);
	assert_int_equal(lava_option(LAVA_OPT_URL, "http://127.0.0.1:9/"), 0);
	assert_int_equal(lava_option(LAVA_OPT_TOKEN_FILE, path), 0);
	chmod(path, 0644);
	assert_int_equal(lava_preflight(), -1);
	assert_non_null(strstr(error_last(), "has mode 0644: others can read it"));
	chmod(path, 0640);
	assert_int_equal(lava_preflight(), -1);
	assert_non_null(strstr(error_last(), "has mode 0640"));
	chmod(path, 0600);
	/* the token is taken; nothing listens on port 9 */
	assert_int_equal(lava_preflight(), -1);
	assert_non_null(strstr(error_last(), "cannot be reached"));
	assert_null(strstr(error_last(), "abc123"));
	unlink(path);
}

static void test_options(void **state)
{
	(void)state;
	assert_int_equal(lava_option(LAVA_OPT_URL, "lab:8007"), -1);
	assert_int_equal(lava_option(LAVA_OPT_URL, "ftp://lab/"), -1);
	assert_int_equal(lava_option(LAVA_OPT_URL, "https://lab.example/"), 0);
	assert_int_equal(lava_option(LAVA_OPT_DEVICE_TYPE, "../x"), -1);
	assert_int_equal(lava_option(LAVA_OPT_DEVICE_TYPE, "qemu"), 0);
	assert_int_equal(lava_option(LAVA_OPT_QUEUE_TIMEOUT, "0"), -1);
	assert_int_equal(lava_option(LAVA_OPT_QUEUE_TIMEOUT, "5s"), -1);
	assert_int_equal(lava_option(LAVA_OPT_QUEUE_TIMEOUT, "30"), 0);
	assert_int_equal(lava_option(LAVA_OPT_SERVE_URL, "lab:8010"), -1);
	assert_int_equal(lava_option(LAVA_OPT_SERVE_URL, "http://kpair-host:8010/"), 0);
}

/* --lava-serve answers only /<32 lowercase hex>/<short label>; the rest is a 404 unread */
static void test_serve_paths(void **state)
{
	static const char *const bad[] = {
		"/", "", "/0123456789abcdef0123456789abcdef", "/0123456789abcdef0123456789abcdef/",
		"/0123456789abcdef0123456789abcdeg/kernel", "/0123456789ABCDEF0123456789abcdef/kernel",
		"/0123456789abcdef0123456789abcde/kernel", "/0123456789abcdef0123456789abcdef/../x",
		"/0123456789abcdef0123456789abcdef/kernel/", "/0123456789abcdef0123456789abcdef/a.b",
		"0123456789abcdef0123456789abcdef/kernel", "/0123456789abcdef0123456789abcdef//kernel",
		"/0123456789abcdef0123456789abcdef/aaaaaaaaaaaaaaaaa",
	};
	size_t i;

	(void)state;
	assert_true(lava_serve_path_ok("/0123456789abcdef0123456789abcdef/kernel"));
	assert_true(lava_serve_path_ok("/0123456789abcdef0123456789abcdef/disk0"));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(lava_serve_path_ok(bad[i]));
}

/* the words of @cmd (spawn_cmdline's quoting: '...' around words with spaces), in order */
static int words(const char *cmd, char w[][256], int max)
{
	int n = 0;

	while (*cmd && n < max) {
		size_t k = 0;

		cmd += strspn(cmd, " ");
		if (*cmd == '\'') {
			for (cmd++; *cmd && *cmd != '\'' && k < 255; cmd++)
				w[n][k++] = *cmd;
			cmd += *cmd == '\'';
		} else {
			for (; *cmd && *cmd != ' ' && k < 255; cmd++)
				w[n][k++] = *cmd;
		}
		w[n++][k] = '\0';
	}
	return n;
}

/*
 * One run, two ways: every machine option of the QEMU backend's command line
 * (not its files, sockets and console) is in the LAVA job's extra_options, and
 * the job asks for nothing of the machine that the command line does not have
 */
static void test_job_matches_qemu(void **state)
{
	static const char *const own[] = { "-name", "-pidfile", "-kernel", "-initrd", "-append",
					   "-chardev", "-serial", "-drive", NULL };
	static char w[64][256];
	struct target t;
	struct vm_spec s = { .name = "t", .kernel = "/k", .initrd = "/i", .append = "console=ttyS0",
			     .accel = "tcg", .memory = 1ULL << 30, .cpus = 2,
			     .icount = "shift=0,sleep=off", .cpu = -1, .io_cpu = -1 };
	char *cmd, *job, *p, item[300];
	int n, i, k, checked = 0;

	(void)state;
	target_init(&t);
	assert_int_equal(target_load(&t, "x86_64"), 0);
	s.target = &t;
	s.disks[0] = (struct vm_disk){ "/d", "none", 0 };
	s.ndisks = 1;
	cmd = qemu_command(&s, 3, 4);
	job = lava_job_definition(&s, "");
	assert_non_null(job);
	n = words(cmd, w, 64);
	for (i = 1; i < n; i++) {
		const char *val = i + 1 < n && w[i + 1][0] != '-' ? w[i + 1] : NULL;

		for (k = 0; own[k] && strcmp(w[i], own[k]); k++)
			;
		if (w[i][0] != '-' || own[k] || !strcmp(w[i], "-nographic") ||
		    (!strcmp(w[i], "-device") && val && !strncmp(val, t.blk_dev, strlen(t.blk_dev))))
			continue;
		if (!strcmp(w[i], "-m")) {	/* LAVA's qemu device type takes it from the context */
			assert_non_null(strstr(job, "\n  memory: 1024\n"));
			continue;
		}
		snprintf(item, sizeof(item), "  - '%s%s%s'\n", w[i], val ? " " : "", val ? val : "");
		if (!strstr(job, item))
			fail_msg("QEMU's %s %s is not in the LAVA job", w[i], val ? val : "");
		checked++;
	}
	assert_true(checked >= 10);
	/* and the other way: what the job adds is LAVA's console and the results port's sink */
	for (p = job; (p = strstr(p, "\n  - '")); p++) {
		char opt[256];

		snprintf(opt, sizeof(opt), "%.*s", (int)strcspn(p + 6, "'"), p + 6);
		if (!strcmp(opt, "-serial stdio") || !strcmp(opt, "-chardev file,id=res,path=/dev/null"))
			continue;
		if (!strstr(cmd, strchr(opt, ' ') ? strchr(opt, ' ') + 1 : opt))
			fail_msg("the LAVA job's %s is not in QEMU's command line", opt);
	}
	free(cmd);
	free(job);
	target_release(&t);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_log),
		cmocka_unit_test(test_bad_records),
		cmocka_unit_test(test_token_file),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_serve_paths),
		cmocka_unit_test(test_job_matches_qemu),
		cmocka_unit_test(test_log_parts),
		cmocka_unit_test(test_job_of_three),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
