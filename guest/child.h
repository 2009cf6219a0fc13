/*
 * child.h - run a program in the guest the way a workload needs it: an argv
 * vector (never a shell), its stdout kept whole, the tail of its stderr kept
 * for the error record, its wait status and elapsed time returned.
 */
#ifndef KPAIR_CHILD_H
#define KPAIR_CHILD_H

#include <stddef.h>

struct child {
	char *out;		/* all of stdout, NUL-terminated (owned) */
	size_t len;
	char err[512];		/* the last bytes of stderr, NUL-terminated */
	int status;		/* wait status */
	double elapsed_s;	/* fork to reap */
	const char *root;	/* set before child_run: chroot here first (NULL: none) */
};

void child_init(struct child *c);
void child_release(struct child *c);
/*
 * Run @argv[0] (a path, not looked up) with @argv and @envp in directory @cwd,
 * stdin from /dev/null. Stdout beyond @max bytes is an error. Returns 0 when
 * it ran to its end (look at c->status), or -1 with an error record sent for
 * stage @stage.
 */
int child_run(struct child *c, const char *stage, char *const argv[], char *const envp[],
	      const char *cwd, size_t max);
/* "exited with status N" or "was killed by signal S" for c->status, into @buf */
const char *child_how(const struct child *c, char *buf, size_t len);
/* the last bytes of c->err that fit @buf, its lines joined by " / " (in @buf) */
const char *child_err_tail(const struct child *c, char *buf, size_t len);

#endif
