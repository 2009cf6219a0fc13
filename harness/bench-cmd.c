/*
 * bench-cmd.c - the check of a command job before any boot: its program is an
 * ELF executable for the target's architecture and statically linked (the
 * initramfs has no libc, no loader), and its argv has no shell syntax, since
 * the guest runs no shell: each blank-separated word is one argument. For
 * host-command: an x86_64 host and target, an absolute path to an executable
 * the guest sees through the host's / (not under what the guest mounts over
 * it), and a match/metric pair that reads.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench.h"
#include "spawn.h"
#include "util.h"

#define CMD_MAX_ARGS 64		/* as guest/wl-command.c */
#define CMD_MAX_PHDRS 256

static const struct {
	const char *arch;	/* the target's Debian architecture */
	int class, machine;
	const char *name;
} arches[] = {
	{ "amd64", ELFCLASS64, EM_X86_64, "x86-64" },
	{ "i386", ELFCLASS32, EM_386, "i386" },
	{ "arm64", ELFCLASS64, EM_AARCH64, "aarch64" },
};

static const char *machine_name(int class, int machine)
{
	static char buf[48];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(arches); i++)
		if (arches[i].machine == machine && arches[i].class == class)
			return arches[i].name;
	snprintf(buf, sizeof(buf), "%d-bit ELF machine %d", class == ELFCLASS64 ? 64 : 32, machine);
	return buf;
}

/* the fields kpair needs of a 32- or 64-bit little-endian ELF header */
struct elf_info {
	int class, machine, type;
	uint64_t phoff;
	unsigned phnum, phentsize;
};

static int read_elf_header(int fd, const char *path, const char *at, struct elf_info *e)
{
	unsigned char h[64];
	ssize_t n = pread(fd, h, sizeof(h), 0);

	if (n < EI_NIDENT || memcmp(h, ELFMAG, SELFMAG))
		return error("%s: params.program: '%s': not an ELF executable (a script? the guest has "
			     "no shell)", at, path);
	e->class = h[EI_CLASS];
	if (h[EI_DATA] != ELFDATA2LSB || (e->class != ELFCLASS32 && e->class != ELFCLASS64) ||
	    n < (e->class == ELFCLASS64 ? 64 : 52))
		return error("%s: params.program: '%s': not a little-endian 32- or 64-bit ELF file",
			     at, path);
	if (e->class == ELFCLASS64) {
		Elf64_Ehdr x;

		memcpy(&x, h, sizeof(x));
		e->type = x.e_type;
		e->machine = x.e_machine;
		e->phoff = x.e_phoff;
		e->phnum = x.e_phnum;
		e->phentsize = x.e_phentsize;
	} else {
		Elf32_Ehdr x;

		memcpy(&x, h, sizeof(x));
		e->type = x.e_type;
		e->machine = x.e_machine;
		e->phoff = x.e_phoff;
		e->phnum = x.e_phnum;
		e->phentsize = x.e_phentsize;
	}
	if (e->type != ET_EXEC && e->type != ET_DYN)
		return error("%s: params.program: '%s': an ELF %s, not an executable", at, path,
			     e->type == ET_REL ? "object file" : e->type == ET_CORE ? "core dump" :
			     "file of another type");
	return 0;
}

/* 1 when a PT_INTERP program header names a dynamic loader (copied into @interp) */
static int has_interp(int fd, const struct elf_info *e, char *interp, size_t len)
{
	unsigned i;

	for (i = 0; i < e->phnum && i < CMD_MAX_PHDRS; i++) {
		uint64_t off = e->phoff + (uint64_t)i * e->phentsize, ioff, isz;
		uint32_t type;

		if (e->class == ELFCLASS64) {
			Elf64_Phdr p;

			if (pread(fd, &p, sizeof(p), (off_t)off) != sizeof(p))
				return 0;
			type = p.p_type;
			ioff = p.p_offset;
			isz = p.p_filesz;
		} else {
			Elf32_Phdr p;

			if (pread(fd, &p, sizeof(p), (off_t)off) != sizeof(p))
				return 0;
			type = p.p_type;
			ioff = p.p_offset;
			isz = p.p_filesz;
		}
		if (type != PT_INTERP)
			continue;
		if (isz >= len)
			isz = len - 1;
		isz = pread(fd, interp, isz, (off_t)ioff) > 0 ? isz : 0;
		interp[isz] = '\0';
		interp[strcspn(interp, "\n")] = '\0';
		return 1;
	}
	return 0;
}

static int check_program(const struct job *job, const char *arch)
{
	int i = workload_param_index(job->wl, "program"), fd, ret = -1;
	char at[PATH_MAX + 16], interp[256], *path = bench_file_path(job, i);
	struct elf_info e = { 0 };
	size_t k;

	bench_param_at(job, i, at, sizeof(at));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error("%s: params.program: '%s': %s", at, path, strerror(errno));
		goto out_free;
	}
	if (read_elf_header(fd, path, at, &e) < 0)
		goto out_close;
	for (k = 0; k < ARRAY_SIZE(arches); k++)
		if (!strcmp(arches[k].arch, arch))
			break;
	if (k == ARRAY_SIZE(arches)) {
		error("%s: job.target: architecture '%s' has no command workload", job->file, arch);
		goto out_close;
	}
	if (e.class != arches[k].class || e.machine != arches[k].machine) {
		error("%s: params.program: '%s': built for %s, but target '%s' is %s", at, path,
		      machine_name(e.class, e.machine), job->target, arches[k].name);
		goto out_close;
	}
	if (has_interp(fd, &e, interp, sizeof(interp))) {
		error("%s: params.program: '%s': dynamically linked (loader %s), and the guest has no "
		      "libraries: link it with -static", at, path, interp);
		goto out_close;
	}
	ret = 0;
out_close:
	close(fd);
out_free:
	free(path);
	return ret;
}

static int check_argv(const struct job *job)
{
	int i = workload_param_index(job->wl, "argv"), words = 0, in = 0;
	const char *v = job_param_text(job, i), *p;
	char at[PATH_MAX + 16];

	bench_param_at(job, i, at, sizeof(at));
	for (p = v; *p; p++) {
		if (strchr("\"'\\`$|;&<>", *p))
			return error("%s: params.argv: '%s': %c is shell syntax, and the guest runs no "
				     "shell: each blank-separated word is one argument", at, v, *p);
		if (*p == ' ' || *p == '\t')
			in = 0;
		else if (!in++)
			words++;
	}
	if (words > CMD_MAX_ARGS)
		return error("%s: params.argv: %d words, more than %d arguments", at, words,
			     CMD_MAX_ARGS);
	return 0;
}

int command_check(const struct job *job)
{
	struct target t;
	int ret;

	if (check_argv(job) < 0)
		return -1;
	target_init(&t);
	ret = target_load(&t, job->target);
	if (!ret)
		ret = check_program(job, t.arch);
	target_release(&t);
	return ret;
}

/* the guest's own mounts over the host's tree: a host file there is not what the guest sees */
static const char *const hidden[] = { "/proc", "/sys", "/dev", "/tmp", "/mnt", NULL };

static int check_host_path(const struct job *job)
{
	int i = workload_param_index(job->wl, "path"), k;
	const char *v = job_param_text(job, i);
	char at[PATH_MAX + 16], real[PATH_MAX];
	struct stat st;

	bench_param_at(job, i, at, sizeof(at));
	if (!*v)
		return error("%s: params.path: required: the host program host-command runs", at);
	if (v[0] != '/')
		return error("%s: params.path: '%s': not absolute: the guest runs it from the host's /",
			     at, v);
	if (!realpath(v, real) || stat(real, &st) < 0)
		return error("%s: params.path: '%s': %s", at, v, strerror(errno));
	if (!S_ISREG(st.st_mode) || access(real, X_OK) < 0)
		return error("%s: params.path: '%s': not an executable file", at, v);
	for (k = 0; hidden[k]; k++) {
		size_t n = strlen(hidden[k]);

		if (!strncmp(real, hidden[k], n) && (real[n] == '/' || !real[n]))
			return error("%s: params.path: '%s': under %s, which the guest mounts its own "
				     "over: put it elsewhere", at, real, hidden[k]);
	}
	return 0;
}

/* match and metric: both or neither; metric is NAME UNIT [lower|higher] */
static int check_match(const struct job *job)
{
	int im = workload_param_index(job->wl, "match"), iv = workload_param_index(job->wl, "metric");
	const char *m = job_param_text(job, im), *v = job_param_text(job, iv), *p;
	char at[PATH_MAX + 16], w[3][64];
	int n;

	if (!*m != !*v)
		return error("%s: params.%s: needs params.%s too", bench_param_at(job, *m ? im : iv,
			     at, sizeof(at)), *m ? "match" : "metric", *m ? "metric" : "match");
	if (!*v)
		return 0;
	bench_param_at(job, iv, at, sizeof(at));
	n = sscanf(v, "%63s %63s %63s", w[0], w[1], w[2]);
	for (p = w[0]; n >= 1 && *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
			n = -1;
	if (n < 2 || (n == 3 && strcmp(w[2], "lower") && strcmp(w[2], "higher")))
		return error("%s: params.metric: '%s': expected NAME UNIT [lower|higher]", at, v);
	return 0;
}

/* a workload running the host's own programs: an x86_64 host and target */
static int check_x86(const struct job *job)
{
	struct target t;
	struct utsname u;
	int ret;

	uname(&u);
	if (strcmp(u.machine, "x86_64"))
		return error("%s: workload %s: the host is %s; it runs the host's own programs in an "
			     "x86_64 guest only", job->file, job->wl->name, u.machine);
	target_init(&t);
	ret = target_load(&t, job->target);
	if (!ret && strcmp(t.arch, "amd64"))
		ret = error("%s: job.target: '%s' is %s: %s runs the host's x86-64 programs in an "
			    "x86_64 guest only", job->file, job->target, t.arch, job->wl->name);
	target_release(&t);
	return ret;
}

int host_command_check(const struct job *job)
{
	if (check_argv(job) < 0 || check_match(job) < 0 || check_host_path(job) < 0)
		return -1;
	return check_x86(job);
}

#define STRESSNG_BIN "/usr/bin/stress-ng"	/* as guest/wl-stressng.c */
#define STRESSNG_MAX 16

/* every stressor of params.stressors is one the host's stress-ng has */
int stressng_check(const struct job *job)
{
	struct spawn_result r = SPAWN_RESULT_INIT;
	const char *argv[] = { STRESSNG_BIN, "--stressors", NULL };
	int i = workload_param_index(job->wl, "stressors"), n = 0, ret = -1;
	char at[PATH_MAX + 16], *list, *t, *save = NULL;
	uint64_t per = job->pval[workload_param_index(job->wl, "timeout")];

	bench_param_at(job, i, at, sizeof(at));
	list = xstrdup(job_param_text(job, i));
	if (access(STRESSNG_BIN, X_OK) < 0) {
		error("%s: workload stress-ng runs the host's %s: %s (Debian's stress-ng package, "
		      "scripts/deps)", job->file, STRESSNG_BIN, strerror(errno));
		goto out;
	}
	if (spawn_run(argv, 30000, &r) < 0 || r.exit_code || !r.out) {
		error("%s --stressors failed: %s", STRESSNG_BIN, r.err);
		goto out;
	}
	for (t = strtok_r(list, " \t", &save); t; t = strtok_r(NULL, " \t", &save), n++) {
		char *hit = strstr(r.out, t);
		size_t k = strlen(t);

		while (hit && ((hit > r.out && hit[-1] != ' ') || (hit[k] && !isspace((unsigned char)hit[k]))))
			hit = strstr(hit + 1, t);
		if (strspn(t, "abcdefghijklmnopqrstuvwxyz0123456789-") != k || !hit) {
			error("%s: params.stressors: '%s': not a stressor of the host's stress-ng "
			      "(stress-ng --stressors)", at, t);
			goto out;
		}
	}
	if (!n || n > STRESSNG_MAX) {
		error("%s: params.stressors: %d stressors: give 1 to %d", at, n, STRESSNG_MAX);
		goto out;
	}
	if (n * per + 60000 > job->timeout_ms) {
		char tat[PATH_MAX + 16];

		/* blamed on the stressors where they were given (a --set, a line), in seconds */
		bench_param_at(job, workload_param_index(job->wl, "timeout"), tat, sizeof(tat));
		error("%s: params.stressors: %d stressors of %.0f s each (params.timeout, %s) and a "
		      "minute more do not fit job.timeout (%.0f s): raise it (--set job.timeout=%.0fs)",
		      at, n, per / 1000.0, tat, job->timeout_ms / 1000.0,
		      ((double)n * per + 60000) / 1000.0);
		goto out;
	}
	ret = check_x86(job);
out:
	spawn_result_release(&r);
	free(list);
	return ret;
}
