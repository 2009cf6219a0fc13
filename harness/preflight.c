/*
 * preflight.c - checks of what a run will boot, before anything is made:
 * the kernel image (present, the right format for its architecture, the
 * bytes kernel.json recorded), the guest agent (an ELF executable for the
 * target) and the module files (ELF or compressed). A broken store entry is a
 * setup failure with a reason, never a guest that hangs or panics on it.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernels/kernel.h"
#include "preflight.h"
#include "spawn.h"
#include "util.h"

/* the first @len bytes at @off of @path into @buf; bytes read, or -1 */
static ssize_t read_at(const char *path, off_t off, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, buf, len, off);
	close(fd);
	return n;
}

int kernel_in_store(const char *id_or_dir)
{
	char *store = kernel_store(), *path;
	int ret;

	if (strchr(id_or_dir, '/'))
		path = xasprintf("%s/kernel.json", id_or_dir);
	else
		path = xasprintf("%s/%s/kernel.json", store, id_or_dir);
	ret = path_exists(path);
	free(path);
	free(store);
	return ret;
}

/* does @path start like a kernel QEMU boots for @arch? */
static int image_format(const char *path, const char *arch, char *why, size_t len)
{
	unsigned char b[0x208];
	ssize_t n = read_at(path, 0, b, sizeof(b));
	int x86 = !strcmp(arch, "amd64") || !strcmp(arch, "i386");

	if (n < 0) {
		snprintf(why, len, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	if (!memcmp(b, ELFMAG, SELFMAG) && n >= SELFMAG)
		return 0;	/* an ELF vmlinux (PVH, or arm64's) */
	if (x86 && n >= 0x206 && !memcmp(b + 0x202, "HdrS", 4))
		return 0;	/* a bzImage */
	if (!strcmp(arch, "arm64") && n >= 0x3c && !memcmp(b + 0x38, "ARM\x64", 4))
		return 0;	/* an arm64 Image */
	if (!strcmp(arch, "arm64") && n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		return 0;	/* a gzipped Image, which QEMU unpacks */
	snprintf(why, len, "'%s' (%zd bytes) is not an %s kernel image (%s): corrupt or truncated",
		 path, n, arch, x86 ? "no bzImage HdrS header" : "no arm64 Image magic");
	return -1;
}

int kernel_image_check(const struct kernel *k, char *why, size_t len)
{
	const char *want = json_string_value(json_object_get(k->json, "image_sha256"));
	char got[65];
	struct stat st;

	if (stat(k->image, &st) < 0) {
		snprintf(why, len, "kernel '%s': image '%s': %s", k->id, k->image, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_size == 0) {
		snprintf(why, len, "kernel '%s': image '%s' is %s", k->id, k->image,
			 S_ISREG(st.st_mode) ? "empty" : "not a regular file");
		return -1;
	}
	if (image_format(k->image, k->arch, why, len) < 0)
		return -1;
	if (!want)
		return 0;	/* a built kernel: kernel.json records no digest */
	if (sha256_file_cached(k->image, got) < 0) {
		snprintf(why, len, "kernel '%s': cannot hash '%s': %s", k->id, k->image, error_last());
		return -1;
	}
	if (strcmp(got, want)) {
		snprintf(why, len, "kernel '%s': image '%s' has sha256 %.12s..., kernel.json says "
			 "%.12s...: corrupt or replaced (kpair kernel fetch it again)", k->id,
			 k->image, got, want);
		return -1;
	}
	return 0;
}

static int elf_machine(const char *arch)
{
	if (!strcmp(arch, "amd64"))
		return EM_X86_64;
	if (!strcmp(arch, "i386"))
		return EM_386;
	if (!strcmp(arch, "arm64"))
		return EM_AARCH64;
	return -1;
}

int agent_check(const char *path, const char *arch, char *why, size_t len)
{
	unsigned char b[20];
	ssize_t n = read_at(path, 0, b, sizeof(b));
	int machine, want = elf_machine(arch);

	if (n < 0) {
		snprintf(why, len, "guest agent '%s': %s (run make)", path, strerror(errno));
		return -1;
	}
	if (n < (ssize_t)sizeof(b) || memcmp(b, ELFMAG, SELFMAG)) {
		snprintf(why, len, "guest agent '%s' is not an ELF executable: corrupt (run make)",
			 path);
		return -1;
	}
	/* e_type and e_machine: 16-bit little-endian at 16 and 18 on every target here */
	machine = b[18] | b[19] << 8;
	if ((b[16] | b[17] << 8) != ET_EXEC && (b[16] | b[17] << 8) != ET_DYN) {
		snprintf(why, len, "guest agent '%s' is an ELF file but not an executable", path);
		return -1;
	}
	if (want >= 0 && machine != want) {
		snprintf(why, len, "guest agent '%s' is for ELF machine %d, the %s target needs %d",
			 path, machine, arch, want);
		return -1;
	}
	return 0;
}

int module_files_check(const char *moddir, const struct modlist *m, char *why, size_t len)
{
	static const struct {
		const char *magic;
		size_t n;
	} kinds[] = {
		{ ELFMAG, SELFMAG }, { "\xfd" "7zXZ", 5 }, { "\x28\xb5\x2f\xfd", 4 },
		{ "\x1f\x8b", 2 },
	};
	int i, k;

	for (i = 0; moddir && i < m->n; i++) {
		char *path = xasprintf("%s/%s", moddir, m->path[i]);
		unsigned char b[8];
		ssize_t n = read_at(path, 0, b, sizeof(b));
		int good = 0;

		for (k = 0; n > 0 && k < (int)ARRAY_SIZE(kinds); k++)
			good |= (size_t)n >= kinds[k].n && !memcmp(b, kinds[k].magic, kinds[k].n);
		if (!good) {
			snprintf(why, len, "module '%s' %s", path, n < 0 ? strerror(errno) :
				 "is not an ELF object or an xz, zstd or gzip file: corrupt");
			free(path);
			return -1;
		}
		free(path);
	}
	return 0;
}

int dir_lock(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return error("cannot open '%s': %s", dir, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		close(fd);
		if (e == EWOULDBLOCK)
			return error("'%s' is in use by another kpair process", dir);
		return error("cannot lock '%s': %s", dir, strerror(e));
	}
	return fd;
}
