/*
 * fuzz-job.c - libFuzzer target for job files (harness/config.c and options.c with inih):
 * each input is written to a memfd and loaded as a job, then as a target. Any
 * input must give 0 or -1 with messages, never a crash, a leak or a hang.
 * Its messages go to /dev/null: run it with ASAN_OPTIONS=log_path=... (as
 * make fuzz does) so that a sanitizer report inside the parser is kept.
 * Built and run by `make fuzz`; make check runs the golden corpus of
 * tests/golden/bad-jobs instead.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1, null_fd = -1, err_fd = -1;
	struct target t;
	struct job job;

	if (fd < 0) {	/* a memfd: nothing is left on disk, whatever ends the run */
		fd = memfd_create("kpair-fuzz-job", 0);
		null_fd = open("/dev/null", O_WRONLY);
		err_fd = dup(2);
		if (fd < 0 || null_fd < 0 || err_fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	/* the messages of every bad input are expected: not on the fuzzer's stderr */
	fflush(stderr);
	dup2(null_fd, 2);
	job_init(&job);
	job_load(&job, path, NULL, 0);
	job_release(&job);
	target_init(&t);
	target_load(&t, path);
	target_release(&t);
	fflush(stderr);
	dup2(err_fd, 2);
	return 0;
}
