/*
 * child.c - run a program in the guest for a workload (fio, the user's own
 * binary): argv only, stdout read whole through a pipe, stderr to a file of
 * which the tail is kept, the wait status and the elapsed time returned.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "record.h"
#include "workload.h"

#define CHILD_ERR_FILE "/tmp/kpair-child.err"

void child_init(struct child *c)
{
	memset(c, 0, sizeof(*c));
}

void child_release(struct child *c)
{
	free(c->out);
	child_init(c);
}

/* all of @fd into c->out, up to @max bytes: 0, or -1 with errno set */
static int read_all(struct child *c, int fd, size_t max)
{
	size_t cap = 1 << 14;

	c->out = malloc(cap + 1);
	if (!c->out)
		return -1;
	for (;;) {
		ssize_t k;

		if (c->len == cap) {
			char *n;

			if (cap >= max) {
				errno = EFBIG;
				return -1;
			}
			cap = cap * 2 > max ? max : cap * 2;
			n = realloc(c->out, cap + 1);
			if (!n)
				return -1;
			c->out = n;
		}
		k = read(fd, c->out + c->len, cap - c->len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		c->len += k;
	}
	c->out[c->len] = '\0';
	return 0;
}

static void read_err_tail(struct child *c)
{
	int fd = open(CHILD_ERR_FILE, O_RDONLY | O_CLOEXEC);
	off_t end;
	ssize_t k;

	c->err[0] = '\0';
	if (fd < 0)
		return;
	end = lseek(fd, 0, SEEK_END);
	if (end > (off_t)sizeof(c->err) - 1)
		lseek(fd, end - (off_t)sizeof(c->err) + 1, SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	k = read(fd, c->err, sizeof(c->err) - 1);
	c->err[k > 0 ? k : 0] = '\0';
	close(fd);
	unlink(CHILD_ERR_FILE);
}

int child_run(struct child *c, const char *stage, char *const argv[], char *const envp[],
	      const char *cwd, size_t max)
{
	int pfd[2], efd, err = 0;
	double t0 = wl_now();
	pid_t pid;

	efd = open(CHILD_ERR_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (efd < 0)
		return rec_error(stage, errno, "cannot create %s: %s", CHILD_ERR_FILE,
				 strerror(errno));
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		err = errno;
		close(efd);
		return rec_error(stage, err, "pipe: %s", strerror(err));
	}
	pid = fork();
	if (pid < 0) {
		err = errno;
		close(efd);
		close(pfd[0]);
		close(pfd[1]);
		return rec_error(stage, err, "fork: %s", strerror(err));
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null >= 0)
			dup2(null, 0);
		dup2(pfd[1], 1);
		dup2(efd, 2);
		if (c->root && (chroot(c->root) < 0 || chdir("/") < 0))
			_exit(126);
		if (cwd && chdir(cwd) < 0)
			_exit(126);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(efd);
	close(pfd[1]);
	if (read_all(c, pfd[0], max) < 0) {
		err = errno;
		kill(pid, SIGKILL);
	}
	close(pfd[0]);
	while (waitpid(pid, &c->status, 0) < 0 && errno == EINTR)
		;
	c->elapsed_s = wl_now() - t0;
	read_err_tail(c);
	if (err)
		return rec_error(stage, err, "reading the output of %s: %s", argv[0],
				 err == EFBIG ? "more output than allowed" : strerror(err));
	if (WIFEXITED(c->status) && WEXITSTATUS(c->status) == 127)
		return rec_error(stage, ENOEXEC, "cannot execute %s", argv[0]);
	if (WIFEXITED(c->status) && WEXITSTATUS(c->status) == 126 && cwd)
		return rec_error(stage, ENOENT, "cannot enter %s for %s", cwd, argv[0]);
	return 0;
}

const char *child_how(const struct child *c, char *buf, size_t len)
{
	if (WIFEXITED(c->status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(c->status));
	else if (WIFSIGNALED(c->status))
		snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(c->status),
			 strsignal(WTERMSIG(c->status)));
	else
		snprintf(buf, len, "ended with wait status %#x", c->status);
	return buf;
}

const char *child_err_tail(const struct child *c, char *buf, size_t len)
{
	const char *s = c->err;
	size_t n = strlen(s), k = 0;

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		n--;
	/* keep the end: what a program prints last is what went wrong */
	if (n > (len - 1) / 2) {
		s += n - (len - 1) / 2;
		n = (len - 1) / 2;
	}
	for (; *s && n && k + 4 < len; s++, n--) {
		if (*s == '\n') {
			memcpy(buf + k, " / ", 3);
			k += 3;
		} else {
			buf[k++] = (unsigned char)*s < ' ' ? '?' : *s;
		}
	}
	buf[k] = '\0';
	return buf;
}
