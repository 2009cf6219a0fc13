/*
 * spawn.h - the one way kpair starts a child (qemu, mkfs, apt-get, dpkg-deb):
 * an argv vector, never a shell; a timeout; SIGKILL and reaping; captured output.
 */
#ifndef KPAIR_SPAWN_H
#define KPAIR_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

#define SPAWN_ERR_KEEP 8192	/* bytes of stderr kept (the tail) */

struct spawn_result {
	int exit_code;		/* exit status, or 128 + signal */
	int timed_out;
	char *out;		/* whole stdout, NUL-terminated (owned) */
	size_t out_len;
	char err[SPAWN_ERR_KEEP + 1];	/* tail of stderr, NUL-terminated */
};
#define SPAWN_RESULT_INIT { 0, 0, NULL, 0, { 0 } }

void spawn_result_release(struct spawn_result *r);

/*
 * Run @argv (argv[0] looked up in PATH) to completion with stdin from
 * /dev/null, killing it after @timeout_ms (0: none). Returns 0 when it ran
 * (check r->exit_code), -1 when it could not be started (an error is
 * printed) or timed out (r->timed_out set, nothing printed).
 */
int spawn_run(const char *const *argv, int timeout_ms, struct spawn_result *r);

/* the same, run in directory @cwd */
int spawn_run_in(const char *const *argv, const char *cwd, int timeout_ms,
		 struct spawn_result *r);

/* spawn_run_in that also fails, with the command and its stderr, on a non-zero exit */
int spawn_checked(const char *const *argv, const char *cwd, int timeout_ms,
		  struct spawn_result *r);

/* the argv as one printable line, for logs and result files (caller frees) */
char *spawn_cmdline(const char *const *argv);

/*
 * Start @argv in the background with stdin from /dev/null and stdout and
 * stderr to @log_fd (or /dev/null when -1). The child keeps the descriptors
 * listed in @keep (ending with -1) open; every other is closed. Its own process
 * group, so a kill reaches its threads and helpers.
 */
int spawn_start(const char *const *argv, int log_fd, const int *keep, pid_t *pid);
/* the same, bound to host CPU @cpu (all its threads inherit it); -1: unbound */
int spawn_start_on(const char *const *argv, int log_fd, const int *keep, int cpu, pid_t *pid);
/* reap child @pid if it exits within @secs (its wait status in *status): 1 if it did, else 0 */
int spawn_reap_within(pid_t pid, int *status, double secs);
/* SIGKILL @pid's group and reap it; returns its wait status */
int spawn_kill(pid_t pid);

/* bind the threads of @pid whose name contains @prefix to host CPU @cpu; how many */
int spawn_pin_threads(pid_t pid, const char *prefix, int cpu);

/* hex sha256 of a file into @hex (65 bytes), by spawning sha256sum */
int sha256_file(const char *path, char hex[65]);

/* sha256_file, remembered beside the file in "<path>.sha256" */
int sha256_file_cached(const char *path, char hex[65]);

#endif
