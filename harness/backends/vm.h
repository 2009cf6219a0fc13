/*
 * vm.h - what every backend shares (backends/vm.c): a run's spec and result,
 * the run statuses, the console scan, the watch loop's deadlines and the
 * classification of a run's end, and struct backend with the table of them
 * (qemu.c, libvirt.c, lava-run.c). Each backend starts a guest, watches it and
 * always reaps it, feeding the results port into the caller's channel.
 */
#ifndef KPAIR_VM_H
#define KPAIR_VM_H

#include <getopt.h>
#include <jansson.h>
#include <stdint.h>

#include "channel.h"
#include "config.h"

enum run_status {
	RUN_OK,
	RUN_BOOT_TIMEOUT,
	RUN_WORKLOAD_TIMEOUT,
	RUN_PANIC,
	RUN_AGENT_EXIT,
	RUN_QEMU_DIED,
	RUN_BAD_RECORD,
	RUN_WORKLOAD_FAILED,
	RUN_SETUP_FAILED,
	RUN_STORE_FAILED,	/* the host could not store the records (disk full) */
	RUN_NSTATUS
};

struct run_status_info {
	const char *name;
	int exit_code;
	int guest;		/* the guest's own failure, not the host's */
	const char *help;
};
extern const struct run_status_info run_statuses[RUN_NSTATUS];
/* the status called @name is a failure of the guest (panic, hang, workload error) */
int run_status_is_guest(const char *name);

#define VM_MAX_DISKS 4

struct vm_disk {
	const char *path;
	const char *cache;
	int readonly;
};

struct vm_spec {
	const struct target *target;
	const char *name;
	const char *kernel;	/* image passed to -kernel */
	const char *initrd;
	const char *append;	/* whole kernel command line */
	const char *accel;	/* "kvm" or "tcg" */
	uint64_t memory, cpus;
	struct vm_disk disks[VM_MAX_DISKS];
	int ndisks;
	const char *console_log;	/* file the console is copied to */
	const char *qemu_log;		/* QEMU's own stdout/stderr */
	const char *pid_file;		/* QEMU's pid while it runs, or NULL */
	const char *dest;	/* where the run goes (--uri, or a --hosts entry: a libvirt URI);
				 * NULL: the backend's own default */
	int remote;		/* @dest does not see this host's files: they are sent to it,
				 * and the console and results read back as streams */
	double boot_timeout, workload_timeout;	/* seconds */
	const char *host_root;	/* this host directory read-only over virtio-9p, tag "hostroot"
				 * (a backend with BACKEND_HOST_ROOT), or NULL */
	const char *icount;	/* -icount value, or NULL (wallclock) */
	/*
	 * a profiled run (QEMU backend only): QEMU's -plugin option value, and the file the
	 * guest's kernel symbols arrive in (virtio-serial port org.kpair.symbols); or NULL
	 */
	const char *plugin;
	const char *symbols;
	const char *earlier;	/* the directory of this run's attempt an earlier kpair left
				 * unfinished (ab resume): a backend that can takes back what
				 * that attempt started (lava: its job); or NULL */
	int cpu;		/* host CPU QEMU is bound to, or -1 */
	int io_cpu;		/* >= 0: QEMU on this CPU, only its vCPU threads on @cpu */
	/* optional: told "workload" at hello and "poweroff" at done */
	void (*on_phase)(void *user, const char *phase);
	void *phase_user;
};

#define CONSOLE_TAIL 8192

struct vm_result {
	enum run_status status;
	char reason[512];		/* one line for a human */
	char *cmdline;			/* the QEMU argv as run (owned) */
	int vcpus_pinned;		/* job.pin_io: vCPU threads moved to job.pin */
	double t_start;			/* mono time QEMU was started */
	double first_console;		/* seconds from start; -1 if none */
	double hello, first_sample, done, exit;	/* seconds from start; -1 if never */
	int qemu_status;		/* wait status */
	char panic_line[256];
	int warnings;			/* oops/BUG/WARNING lines seen */
	char first_warning[256];
	char console_tail[CONSOLE_TAIL + 1];
	char error_record[512];		/* the agent's error record, if any */
	int qemu_pid;
	char store_error[512];		/* why a record could not be stored on the host */
	char where[256];		/* what ran it: a host's name, a LAVA job ("" unknown) */
	double sent_s;			/* @remote: the time sending the run's files took */
	unsigned long long sent_bytes;
	int not_started;		/* a run of several handed over together that its backend
					 * never booted (the job ended earlier): run it again, alone */
};

/* one option of a backend, --<name> on run, ab, calibrate, resume and nightly */
struct backend_opt {
	const char *name;	/* without "--" */
	const char *arg;	/* its value in the usage ("URL"), NULL for a flag */
};

/* what a backend can do that the others may not */
enum backend_cap {
	BACKEND_HOST_ROOT = 1 << 0,	/* share a host directory with the guest (virtio-9p) */
	BACKEND_HOSTS = 1 << 1,		/* fan runs out over --hosts, one guest a host at a time */
	BACKEND_PLUGINS = 1 << 2,	/* load a TCG plugin into QEMU (profiled runs) */
};

/*
 * A backend: how a run boots (backends/<name>.c, listed once in vm.c's table).
 * Everything the rest of kpair knows of it is here: its name, its options
 * with their help, what it can do, its check before any run, what it keeps in
 * an A/B's plan for resume, and the run itself.
 */
struct text;

struct backend {
	const char *name;
	const char *usage;		/* its options' usage lines ("" when none) */
	unsigned caps;			/* enum backend_cap */
	const struct backend_opt *opts;	/* { NULL }-terminated, or NULL */
	int (*option)(int i, const char *arg);	/* opts[@i] given: -1 with an error if bad */
	int (*preflight)(void);		/* before any run: -1 with an error (NULL: nothing) */
	void (*plan_save)(json_t *plan);	/* its settings into ab.json (never a secret) */
	int (*plan_load)(json_t *plan);	/* and back for resume, checked again */
	/* its options as given, onto a rerun command line (" --lava-url URL ..."; NULL: none) */
	void (*command)(struct text *t);
	/* does a run sent to @dest run on this host's CPUs (its TSC)? NULL: always */
	int (*same_host)(const char *dest);
	int (*run)(const struct vm_spec *spec, struct channel *ch, struct vm_result *res);
	/*
	 * optional: @n runs handed over at once, booted in order (a LAVA job of several), each
	 * with its own channel and result; a run it could not start has RUN_SETUP_FAILED, one
	 * it never booted not_started. batch(): how many an A/B hands it at a time (< 2: none).
	 */
	int (*run_many)(const struct vm_spec *const *spec, struct channel *const *ch,
			struct vm_result *const *res, int n);
	int (*batch)(void);
};

extern const struct backend backend_qemu;
/* the QEMU backend's command line for @s, its sockets' fds as given (caller frees) */
char *qemu_command(const struct vm_spec *s, int con_fd, int res_fd);
extern const struct backend backend_libvirt;
extern const struct backend backend_lava;	/* lava-run.c */
/* the backend called @name (NULL: the first, qemu), or NULL */
const struct backend *backend_find(const char *name);
/* the backend that takes --hosts (libvirt's), for a run sent to a host */
const struct backend *backend_for_hosts(void);
/* the backends' names, NULL-terminated (a job option's choices) */
const char *const *backend_names(void);
/* "qemu, libvirt or lava" (static) */
const char *backend_names_text(void);

#define BACKEND_OPT_BASE 0x4b00		/* getopt values of the backends' options */
/* every backend's options appended to getopt table @lopts at *@n (room for @max), ended */
void backend_getopt(struct option *lopts, int *n, int max);
/* a getopt value from BACKEND_OPT_BASE on: given to its backend; -1 with an error */
int backend_option(int val, const char *arg);
/* the usage lines of every backend's options */
const char *backend_usage(void);

/*
 * The channel callback both backends put in front of the caller's (cb, user):
 * it times hello, the first sample and done, keeps the agent's error record,
 * tells spec->on_phase, and tells a failure to store a record (the host's
 * fault) from the guest's.
 */
struct vm_chain {
	channel_cb cb;
	void *user;
	struct vm_result *res;
	const struct vm_spec *spec;
};
int vm_chain_cb(void *user, enum rec_type type, json_t *rec, const char *line, size_t len);

void vm_result_init(struct vm_result *r);
void vm_result_release(struct vm_result *r);
/*
 * Scan @n bytes of console output as the watch loop does (panic line,
 * oops/BUG/WARNING/hung-task/soft-lockup lines, the tail) into @r; for tests.
 */
void console_scan_text(struct vm_result *r, const char *text, size_t n);

/* the same scan as bytes come: a line buffer, the tail, and a copy to @log_fd (or -1) */
struct console_scan {
	struct vm_result *res;
	int log_fd;
	char line[512];
	size_t line_len;
	size_t tail_len;
};
void console_scan_bytes(struct console_scan *w, const char *buf, size_t n);
/* the last line, when it had no newline */
void console_scan_end(struct console_scan *w);
/* the run status of what @r saw (console, records, QEMU's end); for tests */
void vm_classify(const struct vm_spec *s, struct vm_result *r, struct channel *ch,
		 int timed_out, int qemu_exited);

/*
 * The watch loops' clock: the boot deadline becomes hello + workload_timeout
 * at hello, and 30 s of grace to sync and power off at done (*grace < 0
 * until then). 1 when @now is past it (*timed_out: done never came).
 */
int vm_deadline(const struct vm_spec *s, const struct channel *ch, const struct vm_result *res,
		double now, double *deadline, double *grace, int *timed_out);

#endif
