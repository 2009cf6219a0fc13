/* spawn.c - start children by argv vector, with timeouts, kill and captured output */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"
#include "util.h"

void spawn_result_release(struct spawn_result *r)
{
	free(r->out);
	r->out = NULL;
	r->out_len = 0;
}

char *spawn_cmdline(const char *const *argv)
{
	size_t len = 1, i;
	char *s, *p;

	for (i = 0; argv[i]; i++)
		len += strlen(argv[i]) * 4 + 3;
	s = p = xcalloc(1, len);
	for (i = 0; argv[i]; i++) {
		const char *a = argv[i];
		int quote = !*a || strpbrk(a, " \t\"'\\$;&|<>()*?") != NULL;

		if (i)
			*p++ = ' ';
		if (quote)
			*p++ = '\'';
		for (; *a; a++) {
			if (*a == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else {
				*p++ = *a;
			}
		}
		if (quote)
			*p++ = '\'';
	}
	*p = '\0';
	return s;
}

static void child_close_others(const int *keep)
{
	long max = sysconf(_SC_OPEN_MAX);
	int fd, i, k;

	if (max < 0 || max > 65536)
		max = 65536;
	for (fd = 3; fd < max; fd++) {
		for (k = 0, i = 0; keep && keep[i] >= 0; i++)
			if (keep[i] == fd)
				k = 1;
		if (!k)
			close(fd);
	}
}

static void child_exec(const char *const *argv)
{
	execvp(argv[0], (char *const *)argv);
	dprintf(2, "kpair: cannot run '%s': %s\n", argv[0], strerror(errno));
	_exit(127);
}

static int wait_status_code(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 255;
}

static void keep_tail(char *err, size_t *elen, const char *buf, size_t n)
{
	if (n >= SPAWN_ERR_KEEP) {
		memcpy(err, buf + n - SPAWN_ERR_KEEP, SPAWN_ERR_KEEP);
		*elen = SPAWN_ERR_KEEP;
	} else if (*elen + n > SPAWN_ERR_KEEP) {
		size_t drop = *elen + n - SPAWN_ERR_KEEP;

		memmove(err, err + drop, *elen - drop);
		*elen -= drop;
		memcpy(err + *elen, buf, n);
		*elen += n;
	} else {
		memcpy(err + *elen, buf, n);
		*elen += n;
	}
	err[*elen] = '\0';
}

int spawn_run(const char *const *argv, int timeout_ms, struct spawn_result *r)
{
	return spawn_run_in(argv, NULL, timeout_ms, r);
}

int spawn_run_in(const char *const *argv, const char *cwd, int timeout_ms,
		 struct spawn_result *r)
{
	int outp[2], errp[2], st = 0, open_fds = 2;
	size_t cap = 0, elen = 0;
	double deadline = mono_now() + timeout_ms / 1000.0;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->out = NULL;
	if (pipe2(outp, O_CLOEXEC) < 0)
		return error("pipe: %s", strerror(errno));
	if (pipe2(errp, O_CLOEXEC) < 0) {
		close(outp[0]);
		close(outp[1]);
		return error("pipe: %s", strerror(errno));
	}
	pid = fork();
	if (pid < 0) {
		close(outp[0]);
		close(outp[1]);
		close(errp[0]);
		close(errp[1]);
		return error("fork: %s", strerror(errno));
	}
	if (!pid) {
		int nul = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		dup2(nul, 0);
		dup2(outp[1], 1);
		dup2(errp[1], 2);
		child_close_others(NULL);
		if (cwd && chdir(cwd) < 0) {
			dprintf(2, "kpair: cannot chdir to '%s': %s\n", cwd, strerror(errno));
			_exit(127);
		}
		child_exec(argv);
	}
	setpgid(pid, pid);
	close(outp[1]);
	close(errp[1]);
	while (open_fds) {
		struct pollfd pfd[2] = { { outp[0], POLLIN, 0 }, { errp[0], POLLIN, 0 } };
		int wait_ms = -1, k;
		char buf[8192];
		ssize_t n;

		if (timeout_ms > 0) {
			wait_ms = (int)((deadline - mono_now()) * 1000);
			if (wait_ms <= 0) {
				r->timed_out = 1;
				break;
			}
		}
		k = poll(pfd, 2, wait_ms);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			continue;
		if (pfd[0].fd >= 0 && pfd[0].revents) {
			n = read(outp[0], buf, sizeof(buf));
			if (n <= 0) {
				pfd[0].fd = -1;
				close(outp[0]);
				outp[0] = -1;
				open_fds--;
			} else {
				if (r->out_len + n + 1 > cap) {
					cap = (r->out_len + n + 1) * 2;
					r->out = realloc(r->out, cap);
					if (!r->out)
						abort();
				}
				memcpy(r->out + r->out_len, buf, n);
				r->out_len += n;
				r->out[r->out_len] = '\0';
			}
		}
		if (errp[0] >= 0 && pfd[1].revents) {
			n = read(errp[0], buf, sizeof(buf));
			if (n <= 0) {
				close(errp[0]);
				errp[0] = -1;
				open_fds--;
			} else {
				keep_tail(r->err, &elen, buf, n);
			}
		}
		if (outp[0] < 0)
			pfd[0].fd = -1;
	}
	if (outp[0] >= 0)
		close(outp[0]);
	if (errp[0] >= 0)
		close(errp[0]);
	if (r->timed_out) {
		spawn_kill(pid);
		r->exit_code = 128 + SIGKILL;
		return -1;	/* callers say what timed out */
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	r->exit_code = wait_status_code(st);
	if (!r->out)
		r->out = xstrdup("");
	/* trailing newline of stderr is noise in messages */
	while (elen && (r->err[elen - 1] == '\n' || r->err[elen - 1] == '\r'))
		r->err[--elen] = '\0';
	return 0;
}

int spawn_checked(const char *const *argv, const char *cwd, int timeout_ms,
		  struct spawn_result *r)
{
	if (spawn_run_in(argv, cwd, timeout_ms, r) < 0) {
		if (r->timed_out)
			error("'%s' timed out after %d s", argv[0], timeout_ms / 1000);
		return -1;
	}
	if (r->exit_code) {
		char *cmd = spawn_cmdline(argv);

		error("'%s' failed (exit %d): %s", cmd, r->exit_code, r->err);
		free(cmd);
		return -1;
	}
	return 0;
}

int spawn_start(const char *const *argv, int log_fd, const int *keep, pid_t *pid)
{
	return spawn_start_on(argv, log_fd, keep, -1, pid);
}

int spawn_start_on(const char *const *argv, int log_fd, const int *keep, int cpu, pid_t *pid)
{
	pid_t parent = getpid(), p = fork();

	if (p < 0)
		return error("fork: %s", strerror(errno));
	if (!p) {
		int nul = open("/dev/null", O_RDWR);
		int i;

		/* a background child (QEMU) never outlives kpair, even a SIGKILLed one */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(127);
		setpgid(0, 0);
		dup2(nul, 0);
		dup2(log_fd >= 0 ? log_fd : nul, 1);
		dup2(log_fd >= 0 ? log_fd : nul, 2);
		for (i = 0; keep && keep[i] >= 0; i++)
			fcntl(keep[i], F_SETFD, 0);
		if (cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set) < 0) {
				dprintf(2, "kpair: cannot bind to CPU %d: %s\n", cpu, strerror(errno));
				_exit(127);
			}
		}
		child_close_others(keep);
		child_exec(argv);
	}
	setpgid(p, p);
	*pid = p;
	return 0;
}

int spawn_reap_within(pid_t pid, int *status, double secs)
{
	double until = mono_now() + secs;
	int pfd = -1, got = 0;

#ifdef SYS_pidfd_open
	/* readable when the child exits: no polling interval between its exit and the reap */
	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	for (;;) {
		double left = until - mono_now();
		pid_t p = waitpid(pid, status, WNOHANG);

		if (p == pid) {
			got = 1;
			break;
		}
		if (left <= 0 || (p < 0 && errno != EINTR))
			break;
		if (pfd >= 0) {
			struct pollfd x = { pfd, POLLIN, 0 };

			poll(&x, 1, (int)(left * 1000) + 1);
		} else {
			usleep(5000);	/* a kernel before 5.3 */
		}
	}
	if (pfd >= 0)
		close(pfd);
	return got;
}

int spawn_kill(pid_t pid)
{
	int st = 0;

	if (pid <= 0)
		return 0;
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

int spawn_pin_threads(pid_t pid, const char *prefix, int cpu)
{
	char path[64], comm[64];
	struct dirent *e;
	cpu_set_t set;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);
		FILE *f;

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && strstr(comm, prefix) &&
		    sched_setaffinity(tid, sizeof(set), &set) == 0)
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

int sha256_file(const char *path, char hex[65])
{
	const char *argv[] = { "sha256sum", "--", path, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	int ret = -1;

	if (spawn_run(argv, 60000, &r) < 0) {
		error("sha256sum '%s' did not finish", path);
		goto out;
	}
	if (r.exit_code != 0 || r.out_len < 64) {
		error("sha256sum '%s' failed: %s", path, r.err);
		goto out;
	}
	memcpy(hex, r.out, 64);
	hex[64] = '\0';
	ret = 0;
out:
	spawn_result_release(&r);
	return ret;
}

int sha256_file_cached(const char *path, char hex[65])
{
	char *stamp = xasprintf("%s.sha256", path), *v = stamp_get(stamp, path);
	int ret = 0;

	if (v && strlen(v) == 64 && strspn(v, "0123456789abcdef") == 64) {
		memcpy(hex, v, 65);
	} else {
		ret = sha256_file(path, hex);
		if (!ret)
			stamp_put(stamp, path, hex);
	}
	free(v);
	free(stamp);
	return ret;
}
