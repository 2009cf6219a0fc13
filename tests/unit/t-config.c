/*
 * t-config.c - unit tests of job files (harness/config.c: job_load, --set
 * overrides, defaults, every error and where it is reported) and of the
 * value parser they share with the guest (guest/units.c: unit_parse).
 */
#include <stdint.h>

#include "unit.h"

#include "config.h"
#include "units.h"
#include "util.h"
#include "workload.h"

static char *dir;	/* scratch directory for the job files */

static int group_setup(void **state)
{
	(void)state;
	dir = scratch_dir("t-config");
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	free(dir);
	return 0;
}

struct loaded {
	struct job job;
	char *path;
	char *err;	/* everything printed on stderr */
	int ret;
};

/* write @text to @name in the scratch dir and job_load it with @sets */
static void load(struct loaded *l, const char *name, const char *text, char *const *sets,
		 int nset)
{
	struct capture cap;

	l->path = scratch_write(dir, name, text, strlen(text));
	job_init(&l->job);
	capture_start(&cap);
	l->ret = job_load(&l->job, l->path, sets, nset);
	l->err = capture_end(&cap);
}

static void loaded_release(struct loaded *l)
{
	job_release(&l->job);
	free(l->path);
	free(l->err);
}

static uint64_t param(const struct job *job, const char *name)
{
	int i = workload_param_index(job->wl, name);

	assert_true(i >= 0);
	return job->pval[i];
}

/* a workload default in base units, as the table gives it */
static uint64_t param_default(const struct workload *wl, const char *name)
{
	int i = workload_param_index(wl, name);
	const char *why;
	uint64_t v;

	assert_true(i >= 0);
	assert_int_equal(unit_parse(wl->params[i].kind, wl->params[i].def, &v, &why), 0);
	return v;
}

static const char valid_job[] =
	"# a job for the unit tests\n"		/* 1 */
	"[job]\n"				/* 2 */
	"name = unit-test\n"			/* 3 */
	"workload = smoke\n"			/* 4 */
	"timeout = 120s\n"			/* 5 */
	"memory = 1G\n"				/* 6 */
	"cpus=2\n"				/* 7 */
	"; another comment\n"			/* 8 */
	"cmdline = quiet loglevel=3\n"		/* 9 */
	"\n"					/* 10 */
	"[disk]\n"				/* 11 */
	"fs = ext4\n"				/* 12 */
	"blocksize = 1024\n"			/* 13 */
	"size = 256M\n"				/* 14 */
	"mkfs_options = -O ^has_journal\n"	/* 15 */
	"\n"					/* 16 */
	"[params]\n"				/* 17 */
	"size = 16M\n";				/* 18 */

static void test_valid_job(void **state)
{
	struct loaded l;
	const struct job *j = &l.job;

	(void)state;
	load(&l, "valid.job", valid_job, NULL, 0);
	if (l.ret)
		fail_msg("job_load failed: %s", l.err);
	assert_string_equal(l.err, "");
	assert_string_equal(j->file, l.path);
	assert_string_equal(j->name, "unit-test");
	assert_string_equal(j->workload, "smoke");
	assert_int_equal(j->timeout_ms, 120000);
	assert_int_equal(j->memory, 1ULL << 30);
	assert_int_equal(j->cpus, 2);
	assert_string_equal(j->cmdline, "quiet loglevel=3");
	assert_string_equal(j->fs, "ext4");
	assert_int_equal(j->blocksize, 1024);
	assert_int_equal(j->disk_size, 256ULL << 20);
	assert_string_equal(j->mkfs_options, "-O ^has_journal");
	/* defaults for what the file leaves out */
	assert_int_equal(j->boot_timeout_ms, 120000);
	assert_string_equal(j->target, "x86_64");
	assert_string_equal(j->accel, "auto");
	assert_int_equal(j->seed, 1);
	assert_string_equal(j->mount_options, "");
	/* params resolved against the workload's table */
	assert_ptr_equal(j->wl, &wl_smoke);
	assert_ptr_equal(j->wl, workload_find("smoke"));
	assert_int_equal(j->nparams, 1);
	assert_string_equal(j->params[0].key, "size");
	assert_string_equal(j->params[0].value, "16M");
	assert_int_equal(j->params[0].line, 18);
	assert_int_equal(param(j, "size"), 16ULL << 20);
	assert_int_equal(param(j, "bs"), param_default(&wl_smoke, "bs"));
	assert_string_equal(job_fs_module(j), "ext4");
	loaded_release(&l);
	/* released and reset */
	assert_null(l.job.name);
	assert_int_equal(l.job.nparams, 0);
}

static void test_defaults(void **state)
{
	static const char text[] = "[job]\nname = d\nworkload = smoke\n";
	const struct workload *wl = workload_find("smoke");
	struct loaded l;
	const struct job *j = &l.job;
	int i;

	(void)state;
	load(&l, "defaults.job", text, NULL, 0);
	if (l.ret)
		fail_msg("job_load failed: %s", l.err);
	assert_string_equal(l.err, "");
	assert_int_equal(j->timeout_ms, 300000);
	assert_int_equal(j->boot_timeout_ms, 120000);
	assert_int_equal(j->memory, 1ULL << 30);
	assert_int_equal(j->cpus, 1);
	assert_string_equal(j->cmdline, "");
	assert_string_equal(j->target, "x86_64");
	assert_string_equal(j->accel, "auto");
	assert_int_equal(j->seed, 1);
	assert_string_equal(j->fs, "ext4");
	assert_int_equal(j->blocksize, 4096);
	assert_int_equal(j->disk_size, 2ULL << 30);
	assert_string_equal(j->mkfs_options, "");
	assert_int_equal(j->nparams, 0);
	/* every parameter at the workload's default */
	assert_non_null(wl);
	for (i = 0; wl->params[i].name; i++)
		assert_int_equal(j->pval[i], param_default(wl, wl->params[i].name));
	assert_int_equal(param(j, "size"), 64ULL << 20);
	assert_int_equal(param(j, "bs"), 1ULL << 20);
	loaded_release(&l);
}

static void test_syntax_variants(void **state)
{
	/* CRLF, spacing, inline comments, an empty value, a re-opened section */
	static const char text[] =
		"[job]\r\n"
		"  name   =   spaced  \r\n"
		"workload=smoke ; inline comment\r\n"
		"cmdline =\r\n"
		"seed = 0\r\n"
		"[disk]\r\n"
		"fs = xfs\r\n"
		"[job]\r\n"
		"cpus = 64\r\n";
	struct loaded l;

	(void)state;
	load(&l, "variants.job", text, NULL, 0);
	if (l.ret)
		fail_msg("job_load failed: %s", l.err);
	assert_string_equal(l.job.name, "spaced");
	assert_string_equal(l.job.workload, "smoke");
	assert_string_equal(l.job.cmdline, "");
	assert_int_equal(l.job.seed, 0);	/* 0 is allowed where the minimum is 0 */
	assert_int_equal(l.job.cpus, 64);	/* the maximum itself */
	assert_string_equal(l.job.fs, "xfs");
	assert_string_equal(job_fs_module(&l.job), "xfs");
	loaded_release(&l);
}

static void test_fs_module(void **state)
{
	static const char *const fs[] = { "ext2", "ext3", "ext4", "xfs", "none" };
	static const char *const mod[] = { "ext4", "ext4", "ext4", "xfs", NULL };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(fs) / sizeof(fs[0]); i++) {
		char *set = xasprintf("disk.fs=%s", fs[i]);
		struct loaded l;

		load(&l, "fs.job", "[job]\nname = f\nworkload = smoke\n", &set, 1);
		if (l.ret)
			fail_msg("fs %s: %s", fs[i], l.err);
		if (mod[i])
			assert_string_equal(job_fs_module(&l.job), mod[i]);
		else
			assert_null(job_fs_module(&l.job));
		loaded_release(&l);
		free(set);
	}
}

static void test_set_overrides(void **state)
{
	char *sets[] = {
		"disk.fs=xfs", "params.size=8M", "job.timeout=5s", "params.bs=4k",
		"job.cmdline=a=b c", "disk.blocksize=65536",
	};
	struct loaded l;
	const struct job *j = &l.job;

	(void)state;
	load(&l, "set.job", valid_job, sets, sizeof(sets) / sizeof(sets[0]));
	if (l.ret)
		fail_msg("job_load failed: %s", l.err);
	assert_string_equal(l.err, "");
	assert_string_equal(j->fs, "xfs");
	assert_int_equal(j->timeout_ms, 5000);
	assert_string_equal(j->cmdline, "a=b c");	/* only the first '=' splits */
	assert_int_equal(j->blocksize, 65536);
	assert_int_equal(param(j, "size"), 8ULL << 20);
	assert_int_equal(param(j, "bs"), 4096);
	/* the file's param was replaced, not repeated; the new one added */
	assert_int_equal(j->nparams, 2);
	/* untouched keys keep the file's values */
	assert_int_equal(j->memory, 1ULL << 30);
	assert_string_equal(j->name, "unit-test");
	loaded_release(&l);
}

static void test_set_supplies_required(void **state)
{
	char *sets[] = { "job.workload=smoke", "job.name=from-set" };
	struct loaded l;

	(void)state;
	load(&l, "partial.job", "[disk]\nfs = ext2\n", sets, 2);
	if (l.ret)
		fail_msg("job_load failed: %s", l.err);
	assert_string_equal(l.job.name, "from-set");
	assert_string_equal(l.job.workload, "smoke");
	assert_string_equal(l.job.fs, "ext2");
	loaded_release(&l);

	/* the last of two --set for one key wins */
	{
		char *twice[] = { "job.cpus=3", "job.cpus=4" };

		load(&l, "twice.job", "[job]\nname = t\nworkload = smoke\ncpus = 2\n", twice, 2);
		assert_int_equal(l.ret, 0);
		assert_int_equal(l.job.cpus, 4);
		loaded_release(&l);
	}
}

static void test_missing_file(void **state)
{
	char *sets[] = { "job.workload=smoke", "job.name=x" };
	char *path = xasprintf("%s/no-such.job", dir);
	struct capture cap;
	struct job job;
	char *err;
	int ret;

	(void)state;
	job_init(&job);
	capture_start(&cap);
	ret = job_load(&job, path, NULL, 0);
	err = capture_end(&cap);
	assert_int_equal(ret, -1);
	assert_contains(err, path);
	assert_contains(err, "No such file or directory");
	job_release(&job);
	free(err);

	/* overrides must not turn a job file that is not there into a default job */
	job_init(&job);
	capture_start(&cap);
	ret = job_load(&job, path, sets, 2);
	err = capture_end(&cap);
	assert_contains(err, "cannot open");
	if (ret != -1)
		fail_msg("job_load of a missing file with --set returned %d", ret);
	job_release(&job);
	free(err);
	free(path);
}

/*
 * One bad job: job_load fails and stderr says where. @line > 0: the message
 * holds "<file>:<line>: <where>: <why>". LINE_NONE: the error has no line
 * (the text gives none, e.g. a missing key) and the message holds
 * "<file>: <where>: <why>"; a line number there is accepted too.
 * LINE_SET: the error is in a --set and the message holds "<where>: <why>".
 */
#define LINE_NONE 0
#define LINE_SET (-1)

struct bad_job {
	const char *name;
	const char *text;
	char *sets[3];
	int line;
	const char *where, *why;
};

#define JOB_HEAD "[job]\nname = bad\nworkload = smoke\n"	/* lines 1-3 */

static const struct bad_job bad_jobs[] = {
	{ "unknown key", JOB_HEAD "colour = blue\n", {}, 4, "job.colour", "unknown key" },
	{ "unknown key in disk", JOB_HEAD "[disk]\nsize = 1G\nfstype = xfs\n", {}, 6,
	  "disk.fstype", "unknown key" },
	{ "repeated key", JOB_HEAD "timeout = 5s\ntimeout = 6s\n", {}, 5, "job.timeout",
	  "repeated key" },
	{ "repeated key in a re-opened section", JOB_HEAD "[disk]\nfs = xfs\n[job]\nname = again\n",
	  {}, 7, "job.name", "repeated key" },
	{ "repeated param", JOB_HEAD "[params]\nsize = 8M\nsize = 9M\n", {}, 6, "params.size",
	  "repeated key" },
	{ "unknown section", JOB_HEAD "[jobs]\ntimeout = 5s\n", {}, 5, "jobs.timeout",
	  "unknown section" },
	{ "key before any section", "name = x\n" JOB_HEAD, {}, 1, "name", "key before any [section]" },
	{ "bad unit", JOB_HEAD "timeout = 12parsecs\n", {}, 4, "job.timeout",
	  "'12parsecs': bad unit" },
	{ "duration with a size unit", JOB_HEAD "boot_timeout = 2G\n", {}, 4, "job.boot_timeout",
	  "'2G': bad unit" },
	{ "not a number", JOB_HEAD "cpus = many\n", {}, 4, "job.cpus", "'many': not a number" },
	{ "fraction", JOB_HEAD "timeout = 1.5s\n", {}, 4, "job.timeout", "'1.5s': bad unit" },
	{ "trailing text", JOB_HEAD "timeout = 5 s\n", {}, 4, "job.timeout",
	  "'5 s': trailing text after value" },
	{ "empty number", JOB_HEAD "memory =\n", {}, 4, "job.memory", "'': not a number" },
	{ "negative size", JOB_HEAD "memory = -1G\n", {}, 4, "job.memory",
	  "'-1G': negative value" },
	{ "negative disk size", JOB_HEAD "[disk]\nsize = -2G\n", {}, 5, "disk.size",
	  "'-2G': negative value" },
	{ "zero cpus", JOB_HEAD "cpus = 0\n", {}, 4, "job.cpus", "'0': must not be zero" },
	{ "zero timeout", JOB_HEAD "timeout = 0s\n", {}, 4, "job.timeout",
	  "'0s': must not be zero" },
	{ "below the minimum", JOB_HEAD "memory = 63M\n", {}, 4, "job.memory",
	  "'63M': below the minimum" },
	{ "disk below the minimum", JOB_HEAD "[disk]\nsize = 1M\n", {}, 5, "disk.size",
	  "'1M': below the minimum" },
	{ "above the maximum", JOB_HEAD "cpus = 65\n", {}, 4, "job.cpus",
	  "'65': above the maximum" },
	{ "timeout above the maximum", JOB_HEAD "timeout = 25h\n", {}, 4, "job.timeout",
	  "'25h': above the maximum" },
	{ "memory above the maximum", JOB_HEAD "memory = 65G\n", {}, 4, "job.memory",
	  "'65G': above the maximum" },
	{ "overflow", JOB_HEAD "memory = 99999999999999999999\n", {}, 4, "job.memory",
	  "'99999999999999999999': number too large" },
	{ "overflow by the unit", JOB_HEAD "memory = 17179869184G\n", {}, 4, "job.memory",
	  "'17179869184G': number too large" },
	{ "not an allowed fs", JOB_HEAD "[disk]\nfs = btrfs\n", {}, 5, "disk.fs",
	  "'btrfs': not one of the allowed values" },
	{ "not an allowed accel", JOB_HEAD "accel = xen\n", {}, 4, "job.accel",
	  "'xen': not one of the allowed values" },
	{ "enum case matters", JOB_HEAD "accel = KVM\n", {}, 4, "job.accel",
	  "'KVM': not one of the allowed values" },
	{ "unknown param", JOB_HEAD "[params]\nsize = 1M\ncolour = red\n", {}, 6, "params.colour",
	  "workload 'smoke' has no such parameter" },
	{ "param below its minimum", JOB_HEAD "[params]\nsize = 1k\n", {}, 5, "params.size",
	  "'1k': below the minimum" },
	{ "param above its maximum", JOB_HEAD "[params]\nbs = 128M\n", {}, 5, "params.bs",
	  "'128M': above the maximum" },
	{ "param not a number", JOB_HEAD "[params]\n\nbs = big\n", {}, 6, "params.bs",
	  "'big': not a number" },
	{ "param bad unit", JOB_HEAD "[params]\nsize = 4furlongs\n", {}, 5, "params.size",
	  "'4furlongs': bad unit" },
	{ "malformed line", JOB_HEAD "this is not ini\n", {}, 4, NULL, "syntax error" },
	{ "unterminated section", JOB_HEAD "[disk\n", {}, 4, NULL, "syntax error" },
	{ "too-long line", JOB_HEAD "cmdline = %LONG%\n", {}, 4, NULL, "line too long" },
	{ "too-long line without '='", JOB_HEAD "# fine\n%LONG%\n", {}, 5, NULL, "line too long" },
	{ "missing workload", "[job]\nname = w\n", {}, LINE_NONE, "job.workload",
	  "missing (required)" },
	{ "missing name", "[job]\nworkload = smoke\n", {}, LINE_NONE, "job.name",
	  "missing (required)" },
	{ "empty file", "", {}, LINE_NONE, "empty file", "no [job] section" },
	{ "unknown workload", "[job]\nname = u\nworkload = nosuch\n", {}, LINE_NONE,
	  "job.workload", "unknown workload 'nosuch'" },
	{ "blocksize 3000 for ext4", JOB_HEAD "[disk]\nblocksize = 3000\n", {}, LINE_NONE,
	  "disk.blocksize", "3000: ext2/3/4 take 1024, 2048, 4096 or 65536" },
	{ "blocksize 8192 for ext4", JOB_HEAD "[disk]\nfs = ext3\nblocksize = 8192\n", {},
	  LINE_NONE, "disk.blocksize", "8192: ext2/3/4 take" },
	{ "blocksize 3000 for xfs", JOB_HEAD "[disk]\nfs = xfs\nblocksize = 3000\n", {},
	  LINE_NONE, "disk.blocksize", "3000: not a power of two" },
	{ "blocksize below the minimum", JOB_HEAD "[disk]\nblocksize = 256\n", {}, 5,
	  "disk.blocksize", "'256': below the minimum" },
	{ "--set without '='", JOB_HEAD, { "disk.fs" }, LINE_SET,
	  "--set 'disk.fs'", "expected section.key=value" },
	{ "--set without section", JOB_HEAD, { "fs=xfs" }, LINE_SET,
	  "--set 'fs=xfs'", "expected section.key=value" },
	{ "--set with the dot in the value", JOB_HEAD, { "fs=x.fs" }, LINE_SET,
	  "--set 'fs=x.fs'", "expected section.key=value" },
	{ "--set empty", JOB_HEAD, { "" }, LINE_SET, "--set ''", "expected section.key=value" },
	{ "--set unknown key", JOB_HEAD, { "disk.colour=red" }, LINE_SET, "--set disk.colour",
	  "unknown key" },
	{ "--set unknown section", JOB_HEAD, { "jobs.name=x" }, LINE_SET, "--set jobs.name",
	  "unknown key" },
	{ "--set bad unit", JOB_HEAD, { "job.timeout=12parsecs" }, LINE_SET, "--set job.timeout",
	  "'12parsecs': bad unit" },
	{ "--set not an allowed fs", JOB_HEAD, { "disk.fs=zfs" }, LINE_SET, "--set disk.fs",
	  "'zfs': not one of the allowed values" },
	{ "--set bad param", JOB_HEAD, { "params.size=1k" }, LINE_SET, "params.size",
	  "'1k': below the minimum" },
	{ "--set unknown param", JOB_HEAD, { "params.colour=red" }, LINE_SET, "params.colour",
	  "workload 'smoke' has no such parameter" },
	{ "--set blocksize for ext4", JOB_HEAD, { "disk.blocksize=3000" }, LINE_NONE,
	  "disk.blocksize", "3000: ext2/3/4 take" },
};

/* @text with %LONG% replaced by 2000 bytes of 'x'; caller frees */
static char *expand_long(const char *text)
{
	const char *at = strstr(text, "%LONG%");
	char *s, *x;

	if (!at)
		return xstrdup(text);
	x = malloc(2001);
	assert_non_null(x);
	memset(x, 'x', 2000);
	x[2000] = '\0';
	s = xasprintf("%.*s%s%s", (int)(at - text), text, x, at + 6);
	free(x);
	return s;
}

static void test_bad_job(void **state)
{
	const struct bad_job *c = *state;
	char *text = expand_long(c->text), *want;
	struct loaded l;
	int nset;

	for (nset = 0; nset < 3 && c->sets[nset]; nset++)
		;
	load(&l, "bad.job", text, c->sets, nset);
	assert_int_equal(l.ret, -1);
	assert_contains(l.err, "kpair: ");
	if (c->line > 0 && c->where)
		want = xasprintf("%s:%d: %s: %s", l.path, c->line, c->where, c->why);
	else if (c->line > 0)
		want = xasprintf("%s:%d: %s", l.path, c->line, c->why);
	else if (c->line == LINE_SET)
		want = xasprintf("%s: %s", c->where, c->why);
	else
		want = NULL;
	if (want) {
		assert_contains(l.err, want);
	} else {
		/* "<file>: <where>: <why>", or with a line: "<file>:<n>: <where>: <why>" */
		char *tail = xasprintf(" %s: %s", c->where, c->why);
		const char *p = strstr(l.err, tail);
		size_t plen = strlen(l.path);
		const char *q;

		if (!p)
			fail_msg("expected \"%s\" in \"%s\"", tail, l.err);
		for (q = p; q > l.err && q[-1] != '\n'; q--)
			;
		if (strncmp(q, "kpair: ", 7) || strncmp(q + 7, l.path, plen) ||
		    q[7 + plen] != ':')
			fail_msg("expected \"kpair: %s:\" before \"%s\" in \"%s\"", l.path, tail,
				 l.err);
		free(tail);
	}
	free(want);
	free(text);
	loaded_release(&l);
}

/* lines are still counted right after a long line, and every error is told */
static void test_errors_after_long_line(void **state)
{
	char *text = expand_long(JOB_HEAD "cmdline = %LONG%\n\ncolour = red\ncpus = 0\n");
	char *want;
	struct loaded l;

	(void)state;
	load(&l, "long.job", text, NULL, 0);
	assert_int_equal(l.ret, -1);
	want = xasprintf("%s:4: line too long", l.path);
	assert_contains(l.err, want);
	free(want);
	want = xasprintf("%s:6: job.colour: unknown key", l.path);
	assert_contains(l.err, want);
	free(want);
	want = xasprintf("%s:7: job.cpus: '0': must not be zero", l.path);
	assert_contains(l.err, want);
	free(want);
	free(text);
	loaded_release(&l);
}

/* a line just within the limit is fine */
static void test_line_limit(void **state)
{
	char *x = malloc(1001), *text;
	struct loaded l;

	(void)state;
	assert_non_null(x);
	memset(x, 'y', 1000);
	x[1000] = '\0';
	text = xasprintf(JOB_HEAD "cmdline = %s\n", x);
	load(&l, "limit.job", text, NULL, 0);
	if (l.ret)
		fail_msg("job_load failed: %s", l.err);
	assert_string_equal(l.job.cmdline, x);
	loaded_release(&l);
	free(text);
	free(x);
}

struct unit_case {
	enum unit_kind kind;
	const char *s;
	uint64_t want;
	const char *why;	/* NULL: must parse to @want */
};

static const struct unit_case unit_cases[] = {
	{ UNIT_COUNT, "0", 0, NULL },
	{ UNIT_COUNT, "300000", 300000, NULL },
	{ UNIT_COUNT, "10k", 10000, NULL },
	{ UNIT_COUNT, "10K", 10000, NULL },
	{ UNIT_COUNT, "2m", 2000000, NULL },
	{ UNIT_COUNT, "3g", 3000000000ULL, NULL },
	{ UNIT_COUNT, "  7  ", 7, NULL },
	{ UNIT_COUNT, "007", 7, NULL },
	{ UNIT_COUNT, "18446744073709551615", UINT64_MAX, NULL },
	{ UNIT_COUNT, "18446744073709551616", 0, "number too large" },
	{ UNIT_COUNT, "18446744073709552k", 0, "number too large" },
	{ UNIT_COUNT, "-1", 0, "negative value" },
	{ UNIT_COUNT, " -1", 0, "negative value" },
	{ UNIT_COUNT, "+1", 0, "not a number" },
	{ UNIT_COUNT, "", 0, "not a number" },
	{ UNIT_COUNT, "   ", 0, "not a number" },
	{ UNIT_COUNT, "k", 0, "not a number" },
	{ UNIT_COUNT, "0x10", 0, "bad unit" },
	{ UNIT_COUNT, "1.5", 0, "bad unit" },
	{ UNIT_COUNT, "10kk", 0, "bad unit" },
	{ UNIT_COUNT, "10 k", 0, "trailing text after value" },
	{ UNIT_COUNT, "1 2", 0, "trailing text after value" },
	{ UNIT_COUNT, "1KiB", 0, "bad unit" },		/* binary suffixes are sizes only */
	{ UNIT_SIZE, "512", 512, NULL },
	{ UNIT_SIZE, "512b", 512, NULL },
	{ UNIT_SIZE, "4K", 4096, NULL },
	{ UNIT_SIZE, "4k", 4096, NULL },
	{ UNIT_SIZE, "4kb", 4096, NULL },
	{ UNIT_SIZE, "4KiB", 4096, NULL },
	{ UNIT_SIZE, "64M", 64ULL << 20, NULL },
	{ UNIT_SIZE, "64MB", 64ULL << 20, NULL },
	{ UNIT_SIZE, "1G", 1ULL << 30, NULL },
	{ UNIT_SIZE, "2gib", 2ULL << 30, NULL },
	{ UNIT_SIZE, "4T", 4ULL << 40, NULL },
	{ UNIT_SIZE, "16777215T", 16777215ULL << 40, NULL },
	{ UNIT_SIZE, "16777216T", 0, "number too large" },	/* 2^64 */
	{ UNIT_SIZE, "17179869183G", 17179869183ULL << 30, NULL },
	{ UNIT_SIZE, "17179869184G", 0, "number too large" },
	{ UNIT_SIZE, "0G", 0, NULL },
	{ UNIT_SIZE, "-1G", 0, "negative value" },
	{ UNIT_SIZE, "12parsecs", 0, "bad unit" },
	{ UNIT_SIZE, "1verylongunit", 0, "bad unit" },
	{ UNIT_SIZE, "1P", 0, "bad unit" },
	{ UNIT_SIZE, "1s", 0, "bad unit" },
	{ UNIT_SIZE, "1 G", 0, "trailing text after value" },
	{ UNIT_SIZE, "1G ", 1ULL << 30, NULL },
	{ UNIT_DURATION, "120", 120000, NULL },		/* a bare number is seconds */
	{ UNIT_DURATION, "120s", 120000, NULL },
	{ UNIT_DURATION, "500ms", 500, NULL },
	{ UNIT_DURATION, "500MS", 500, NULL },
	{ UNIT_DURATION, "2m", 120000, NULL },		/* minutes, not millions */
	{ UNIT_DURATION, "1min", 60000, NULL },
	{ UNIT_DURATION, "1h", 3600000, NULL },
	{ UNIT_DURATION, "24H", 86400000, NULL },
	{ UNIT_DURATION, "0", 0, NULL },
	{ UNIT_DURATION, "18446744073709551615ms", UINT64_MAX, NULL },
	{ UNIT_DURATION, "18446744073709552s", 0, "number too large" },
	{ UNIT_DURATION, "1d", 0, "bad unit" },
	{ UNIT_DURATION, "1.5s", 0, "bad unit" },
	{ UNIT_DURATION, "1k", 0, "bad unit" },
	{ UNIT_DURATION, "-5s", 0, "negative value" },
	{ UNIT_DURATION, "5s5", 0, "bad unit" },
	{ UNIT_DURATION, "12parsecs", 0, "bad unit" },
};

static void test_unit_parse(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(unit_cases) / sizeof(unit_cases[0]); i++) {
		const struct unit_case *c = &unit_cases[i];
		const char *why = NULL;
		uint64_t v = 12345;
		int r = unit_parse(c->kind, c->s, &v, &why);

		if (c->why) {
			if (r != -1)
				fail_msg("%s '%s': parsed as %llu, expected '%s'",
					 unit_name(c->kind), c->s, (unsigned long long)v, c->why);
			assert_non_null(why);
			if (strcmp(why, c->why))
				fail_msg("%s '%s': '%s', expected '%s'", unit_name(c->kind), c->s,
					 why, c->why);
			assert_int_equal(v, 12345);	/* untouched on failure */
		} else {
			if (r != 0)
				fail_msg("%s '%s': %s", unit_name(c->kind), c->s, why);
			if (v != c->want)
				fail_msg("%s '%s': %llu, expected %llu", unit_name(c->kind), c->s,
					 (unsigned long long)v, (unsigned long long)c->want);
		}
	}
	assert_string_equal(unit_name(UNIT_COUNT), "count");
	assert_string_equal(unit_name(UNIT_SIZE), "size");
	assert_string_equal(unit_name(UNIT_DURATION), "duration");
}

static void test_wl_param_check(void **state)
{
	const struct workload *wl = workload_find("smoke");
	const struct wl_param *p;
	const char *why;
	uint64_t v;

	(void)state;
	assert_non_null(wl);
	assert_null(workload_find("nosuch"));
	assert_int_equal(workload_param_index(wl, "nosuch"), -1);
	p = &wl->params[workload_param_index(wl, "size")];
	assert_int_equal(wl_param_check(p, "4096", &v, &why), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(wl_param_check(p, "4095", &v, &why), -1);
	assert_string_equal(why, "below the minimum");
	assert_int_equal(wl_param_check(p, "1T", &v, &why), 0);
	assert_int_equal(wl_param_check(p, "1025G", &v, &why), -1);
	assert_string_equal(why, "above the maximum");
	assert_int_equal(wl_param_check(p, "lots", &v, &why), -1);
	assert_string_equal(why, "not a number");
	/* every workload's defaults pass its own checks */
	for (const struct workload *const *w = workloads; *w; w++)
		for (p = (*w)->params; p->name; p++)
			if (wl_param_check(p, p->def, &v, &why) < 0)
				fail_msg("workload %s: default %s = '%s': %s", (*w)->name, p->name,
					 p->def, why);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_valid_job),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_syntax_variants),
		cmocka_unit_test(test_fs_module),
		cmocka_unit_test(test_set_overrides),
		cmocka_unit_test(test_set_supplies_required),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_errors_after_long_line),
		cmocka_unit_test(test_line_limit),
		cmocka_unit_test(test_unit_parse),
		cmocka_unit_test(test_wl_param_check),
	};
	size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	size_t nbad = sizeof(bad_jobs) / sizeof(bad_jobs[0]);
	struct CMUnitTest *tests = calloc(nfixed + nbad, sizeof(*tests));
	char *names[sizeof(bad_jobs) / sizeof(bad_jobs[0])];
	size_t i;
	int ret;

	if (!tests)
		return 1;
	memcpy(tests, fixed, sizeof(fixed));
	for (i = 0; i < nbad; i++) {
		if (asprintf(&names[i], "bad job: %s", bad_jobs[i].name) < 0)
			return 1;
		tests[nfixed + i].name = names[i];
		tests[nfixed + i].test_func = test_bad_job;
		tests[nfixed + i].initial_state = (void *)&bad_jobs[i];
	}
	ret = _cmocka_run_group_tests("config", tests, nfixed + nbad, group_setup, group_teardown);
	for (i = 0; i < nbad; i++)
		free(names[i]);
	free(tests);
	return ret;
}
