/*
 * t-console.c - unit tests of the boot stage's console scan and run
 * classification (harness/backends/vm.c): which console lines mark a run
 * (oops, BUG, WARNING, GPF, soft and hard lockups, hung tasks, RCU stalls),
 * which do not, lines split across reads, BIOS text before the kernel's, and
 * the status and reason each ending of a guest gets. The lines are real
 * kernel output (6.1 and 6.12, x86 and arm64); the kernel cannot be made to
 * print most of them from userspace without a module, so they are fed here.
 */
#include <signal.h>
#include <sys/wait.h>

#include "unit.h"

#include "backends/vm.h"
#include "channel.h"

#define HELLO "{\"type\":\"hello\",\"seq\":0,\"agent\":\"a\",\"workload\":\"w\",\"release\":\"r\"," \
	"\"version\":\"v\",\"machine\":\"m\",\"page_size\":4096,\"uptime\":1}\n"
#define SAMPLE "{\"type\":\"sample\",\"seq\":1,\"metric\":\"m\",\"unit\":\"s\",\"value\":1}\n"
#define DONE "{\"type\":\"done\",\"seq\":2,\"samples\":1,\"uptime\":2,\"workload_s\":1}\n"

/* lines that must mark a run, each with the text first_warning must start with */
static const char *const marked[] = {
	"[   12.345678] BUG: kernel NULL pointer dereference, address: 0000000000000008",
	"[   12.345999] Oops: 0002 [#1] PREEMPT SMP NOPTI",
	"[    3.141592] WARNING: CPU: 0 PID: 1 at fs/ext4/inode.c:3614 ext4_iomap_begin+0x1b3/0x2a0 [ext4]",
	"[   44.000001] general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP NOPTI",
	"[   52.123456] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [kworker/0:1:37]",
	"[  242.918273] INFO: task jbd2/vda-8:123 blocked for more than 120 seconds.",
	"[   99.000000] Call Trace:",
	"[   10.000000] kernel BUG at mm/filemap.c:1642!",
	"[   21.734112] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
	"[   21.734112] rcu: INFO: rcu_sched self-detected stall on CPU",
	"[   30.000000] watchdog: Watchdog detected hard LOCKUP on cpu 1",
	"[    5.002000] UBSAN: shift-out-of-bounds in fs/ext4/super.c:4190:25",
	"[    7.100000] Unable to handle kernel NULL pointer dereference at virtual address 0000000000000000",
	"[    7.100100] Internal error: Oops: 0000000096000006 [#1] SMP",
	"[    8.000000] BUG: scheduling while atomic: kworker/0:2/40/0x00000002",
};

/* ordinary boot and workload lines: no mark */
static const char *const clean[] = {
	"[    0.000000] Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0)",
	"[    1.234567] EXT4-fs (vda): mounted filesystem with ordered data mode. Quota mode: none.",
	"[    0.456789] x86/fpu: Supporting XSAVE feature 0x001: 'x87 floating point registers'",
	"[    2.000000] virtio_blk virtio1: [vda] 32768 512-byte logical blocks (16.8 MB/16.0 MiB)",
	"[    0.100000] Debug warnings and bugs: none expected",	/* no pattern: "bugs" is not "BUG:" */
	"kpair-agent: mount /proc: Device or resource busy",
	"SeaBIOS (version 1.16.2-debian-1.16.2-1)",
	"[    3.000000] reboot: Power down",
};

static void scan(struct vm_result *r, const char *text)
{
	console_scan_text(r, text, strlen(text));
}

static void test_marked_lines(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(marked) / sizeof(marked[0]); i++) {
		struct vm_result r;
		char *line;

		vm_result_init(&r);
		assert_true(asprintf(&line, "%s\n", marked[i]) > 0);
		scan(&r, line);
		if (r.warnings != 1)
			fail_msg("not marked: %s", marked[i]);
		assert_string_equal(r.first_warning, marked[i]);
		assert_string_equal(r.panic_line, "");
		free(line);
		vm_result_release(&r);
	}
}

static void test_clean_lines(void **state)
{
	struct vm_result r;
	size_t i;

	(void)state;
	vm_result_init(&r);
	for (i = 0; i < sizeof(clean) / sizeof(clean[0]); i++) {
		scan(&r, clean[i]);
		scan(&r, "\r\n");
		if (r.warnings)
			fail_msg("marked: %s", clean[i]);
	}
	assert_string_equal(r.panic_line, "");
	assert_contains(r.console_tail, "reboot: Power down");
	vm_result_release(&r);
}

/* a line cut into every possible pair of reads is still one line */
static void test_split_reads(void **state)
{
	static const char text[] = "[  242.918273] INFO: task jbd2/vda-8:123 blocked for more than "
				   "120 seconds.\r\n[  243.0] next\n";
	size_t cut;

	(void)state;
	for (cut = 0; cut <= sizeof(text) - 1; cut++) {
		struct vm_result r;

		vm_result_init(&r);
		console_scan_text(&r, text, cut);
		console_scan_text(&r, text + cut, sizeof(text) - 1 - cut);
		if (cut > 70 || cut == 0) {	/* a read ending mid-line ends the line only at the very end */
			assert_int_equal(r.warnings, 1);
			assert_contains(r.first_warning, "INFO: task jbd2/vda-8:123 blocked");
		}
		vm_result_release(&r);
	}
}

/* BIOS text without a newline runs into the kernel's first line: the marks start at the kernel's */
static void test_bios_prefix(void **state)
{
	struct vm_result r;

	(void)state;
	vm_result_init(&r);
	scan(&r, "\x1b" "c\x1b[?7l\x1b[2JSeaBIOS (version 1.16.2)\nBooting from ROM..[    7.862419] "
	     "INFO: task init:83 blocked for more than 1 seconds.\n");
	scan(&r, "Booting from ROM..[    8.354417] Kernel panic - not syncing: Attempted to kill "
	     "init! exitcode=0x0000000b\n");
	assert_string_equal(r.first_warning, "[    7.862419] INFO: task init:83 blocked for more than 1 seconds.");
	assert_string_equal(r.panic_line, "Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b");
	vm_result_release(&r);
}

/* the first panic line is kept, later ones (the end-of-panic line) are not */
static void test_first_panic(void **state)
{
	struct vm_result r;

	(void)state;
	vm_result_init(&r);
	scan(&r, "[    5.356121] Kernel panic - not syncing: sysrq triggered crash\n"
	     "[    5.600000] ---[ end Kernel panic - not syncing: sysrq triggered crash ]---\n");
	assert_string_equal(r.panic_line, "Kernel panic - not syncing: sysrq triggered crash");
	vm_result_release(&r);
}

/* a console far longer than the tail keeps its last bytes, and lines longer than the buffer */
static void test_long_console(void **state)
{
	struct vm_result r;
	char line[2000];
	int i;

	(void)state;
	vm_result_init(&r);
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	for (i = 0; i < 20; i++) {
		scan(&r, line);
		scan(&r, "\n");
	}
	scan(&r, "[    9.000000] WARNING: CPU: 0 PID: 7 at the end\nlast line\n");
	assert_true(strlen(r.console_tail) <= CONSOLE_TAIL);
	assert_contains(r.console_tail, "last line");
	assert_int_equal(r.warnings, 1);
	vm_result_release(&r);
}

struct ending {
	const char *name;
	const char *console;		/* what the console showed */
	const char *records;		/* what arrived on the channel */
	int timed_out, exited, qemu_status;
	const char *store_error;
	enum run_status want;
	const char *reason;		/* expected in the reason */
};

#define KILLED9 SIGKILL			/* wait status of a SIGKILLed child */
#define EXIT(n) ((n) << 8)

static const struct ending endings[] = {
	{ "ok", "", HELLO SAMPLE DONE, 0, 1, 0, NULL, RUN_OK, "ok" },
	{ "ok, marked", "[ 1.000000] WARNING: CPU: 0 PID: 1 at x\n", HELLO SAMPLE DONE, 0, 1, 0, NULL,
	  RUN_OK, "ok, but the console has 1 warning line(s), first: [ 1.000000] WARNING: CPU: 0" },
	{ "panic", "[ 5.3] Kernel panic - not syncing: sysrq triggered crash\n", HELLO SAMPLE, 0, 1, 0,
	  NULL, RUN_PANIC, "Kernel panic - not syncing: sysrq triggered crash" },
	{ "init segv", "Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b\n",
	  HELLO SAMPLE, 0, 1, 0, NULL, RUN_AGENT_EXIT,
	  "the agent (PID 1) died, killed by signal 11 (Segmentation fault): Kernel panic" },
	{ "init abort core", "Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000086\n",
	  HELLO, 0, 1, 0, NULL, RUN_AGENT_EXIT, "killed by signal 6 (Aborted), core dumped" },
	{ "init exit 3", "Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000300\n",
	  HELLO, 0, 1, 0, NULL, RUN_AGENT_EXIT, "the agent (PID 1) died, exited with status 3" },
	{ "boot timeout", "[ 2.0] Waiting for root device /dev/vdz...\n", "", 1, 0, KILLED9, NULL,
	  RUN_BOOT_TIMEOUT, "no hello within 6.0 s of QEMU start; console: [ 2.0] Waiting for root device /dev/vdz..." },
	{ "workload timeout", "", HELLO SAMPLE, 1, 0, KILLED9, NULL, RUN_WORKLOAD_TIMEOUT,
	  "no done within 9.0 s after hello (1 samples in)" },
	{ "bad record", "", HELLO "{\"type\":\"sample\",\"seq\":7}\n", 0, 0, KILLED9, NULL,
	  RUN_BAD_RECORD, "record 1: sample record:" },
	/* QEMU dying cuts the stream mid-record: QEMU's death, not a lying guest */
	{ "qemu killed mid-record", "", HELLO "{\"type\":\"sam", 0, 1, KILLED9, NULL, RUN_QEMU_DIED,
	  "QEMU killed by signal 9 (Killed) after hello, 0 samples in" },
	{ "qemu killed after done", "", HELLO SAMPLE DONE, 0, 1, KILLED9, NULL, RUN_OK, "ok" },
	{ "qemu exit 1", "", "", 0, 1, EXIT(1), NULL, RUN_QEMU_DIED, "QEMU exited with status 1: " },
	{ "agent error", "", HELLO "{\"type\":\"error\",\"seq\":1,\"stage\":\"mount\",\"errno\":22,"
	  "\"message\":\"bad\"}\n", 0, 1, 0, NULL, RUN_WORKLOAD_FAILED, "agent: mount: bad" },
	{ "agent stopped", "", HELLO, 0, 1, 0, NULL, RUN_AGENT_EXIT, "guest stopped after hello" },
	{ "store failed", "", HELLO, 0, 0, KILLED9, "cannot append to 'x': No space left on device",
	  RUN_STORE_FAILED, "cannot store the records: cannot append to 'x': No space left on device" },
};

static int error_cb(void *user, enum rec_type type, json_t *rec, const char *line, size_t len)
{
	struct vm_result *r = user;

	(void)line;
	(void)len;
	if (type == REC_ERROR)	/* as vm.c's chain does */
		snprintf(r->error_record, sizeof(r->error_record), "agent: %s: %s",
			 json_string_value(json_object_get(rec, "stage")),
			 json_string_value(json_object_get(rec, "message")));
	return 0;
}

static void test_ending(void **state)
{
	const struct ending *e = *state;
	struct vm_spec s = { .boot_timeout = 6, .workload_timeout = 9, .qemu_log = "/nonexistent" };
	struct vm_result r;
	struct channel ch;

	vm_result_init(&r);
	channel_init(&ch, error_cb, &r);
	scan(&r, e->console);
	channel_feed(&ch, e->records, strlen(e->records));
	if (e->exited)
		channel_end(&ch);
	if (e->store_error)
		snprintf(r.store_error, sizeof(r.store_error), "%s", e->store_error);
	r.qemu_status = e->qemu_status;
	vm_classify(&s, &r, &ch, e->timed_out, e->exited);
	if (r.status != e->want)
		fail_msg("%s: status %s (%s), want %s", e->name, run_statuses[r.status].name, r.reason,
			 run_statuses[e->want].name);
	assert_contains(r.reason, e->reason);
	assert_null(strchr(r.reason, '\n'));
	vm_result_release(&r);
}

/* the watch loops' clock: boot deadline, hello + workload_timeout, 30 s of grace after done */
static void test_deadline(void **state)
{
	struct vm_spec s = { .boot_timeout = 6, .workload_timeout = 9 };
	double deadline = 100 + s.boot_timeout, grace = -1;
	struct vm_result r;
	struct channel ch;
	int timed_out = 0;

	(void)state;
	vm_result_init(&r);
	channel_init(&ch, NULL, NULL);
	r.t_start = 100;
	assert_int_equal(vm_deadline(&s, &ch, &r, 105, &deadline, &grace, &timed_out), 0);
	assert_int_equal(vm_deadline(&s, &ch, &r, 106, &deadline, &grace, &timed_out), 1);
	assert_int_equal(timed_out, 1);	/* no hello within boot_timeout */
	deadline = 106;
	timed_out = 0;
	ch.got_hello = 1;
	r.hello = 2;			/* hello at 102: the workload has until 111 */
	assert_int_equal(vm_deadline(&s, &ch, &r, 110, &deadline, &grace, &timed_out), 0);
	assert_true(deadline == 111);
	assert_int_equal(vm_deadline(&s, &ch, &r, 111, &deadline, &grace, &timed_out), 1);
	assert_int_equal(timed_out, 1);
	ch.got_done = 1;		/* done at 110.5: 30 s to power off, not a timeout */
	timed_out = 0;
	assert_int_equal(vm_deadline(&s, &ch, &r, 110.5, &deadline, &grace, &timed_out), 0);
	assert_true(grace == 140.5 && deadline == 140.5);
	assert_int_equal(vm_deadline(&s, &ch, &r, 120, &deadline, &grace, &timed_out), 0);
	assert_true(deadline == 140.5);	/* the grace is set once */
	assert_int_equal(vm_deadline(&s, &ch, &r, 141, &deadline, &grace, &timed_out), 1);
	assert_int_equal(timed_out, 0);
	vm_result_release(&r);
}

static void test_status_table(void **state)
{
	int i, j;

	(void)state;
	for (i = 0; i < RUN_NSTATUS; i++) {
		assert_non_null(run_statuses[i].name);
		assert_non_null(run_statuses[i].help);
		for (j = 0; j < i; j++) {
			assert_string_not_equal(run_statuses[i].name, run_statuses[j].name);
			assert_int_not_equal(run_statuses[i].exit_code, run_statuses[j].exit_code);
		}
	}
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_marked_lines),
		cmocka_unit_test(test_clean_lines),
		cmocka_unit_test(test_split_reads),
		cmocka_unit_test(test_bios_prefix),
		cmocka_unit_test(test_first_panic),
		cmocka_unit_test(test_long_console),
		cmocka_unit_test(test_status_table),
		cmocka_unit_test(test_deadline),
	};
	size_t nfixed = sizeof(fixed) / sizeof(fixed[0]), nend = sizeof(endings) / sizeof(endings[0]);
	struct CMUnitTest *tests = calloc(nfixed + nend, sizeof(*tests));
	size_t i;
	int ret;

	memcpy(tests, fixed, sizeof(fixed));
	for (i = 0; i < nend; i++) {
		tests[nfixed + i].name = endings[i].name;
		tests[nfixed + i].test_func = test_ending;
		tests[nfixed + i].initial_state = (void *)&endings[i];
	}
	ret = _cmocka_run_group_tests("console", tests, nfixed + nend, NULL, NULL);
	free(tests);
	return ret;
}
