/*
 * boot.h - start a guest, watch it, and always reap it. The QEMU backend
 * sits behind a struct backend ops table (a libvirt one can join it). The
 * serial console and the results port each get one end of a socketpair, so
 * the harness sees every byte as it comes and EOF when QEMU goes away.
 */
#ifndef KPAIR_BOOT_H
#define KPAIR_BOOT_H

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
	const char *help;
};
extern const struct run_status_info run_statuses[RUN_NSTATUS];

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
	const char *uri;		/* libvirt backend: connection URI (NULL: qemu:///system) */
	int stage;			/* libvirt backend: upload the files as volumes, read the
					 * console and results as streams (another host's daemon) */
	double boot_timeout, workload_timeout;	/* seconds */
	const char *host_root;	/* qemu backend: this host directory read-only over virtio-9p, tag
				 * "hostroot" (the host-command workload), or NULL */
	const char *icount;	/* -icount value, or NULL (wallclock) */
	const char *resume_from;	/* lava backend: the directory of this run's attempt that
					 * an earlier kpair left unfinished (ab resume), or NULL */
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
	char host[256];			/* libvirt backend: the host that ran the domain */
	double upload_s;		/* libvirt backend: time the volume uploads took */
	unsigned long long upload_bytes;
};

struct backend {
	const char *name;
	int (*run)(const struct vm_spec *spec, struct channel *ch, struct vm_result *res);
};

extern const struct backend backend_qemu;
extern const struct backend backend_libvirt;
extern const struct backend backend_lava;	/* lava-run.c */
/* the backend called @name (NULL: qemu), or NULL */
const struct backend *backend_find(const char *name);

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

/* "kvm" or "tcg" for @target, probing KVM once (cached in images/accel.json) */
int accel_choose(const struct target *t, const char *kernel, const char *want,
		 char *accel, size_t len, char *why, size_t whylen);
/* QEMU's version line, e.g. "7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)" (caller frees) */
char *qemu_version(const char *qemu);

#endif
