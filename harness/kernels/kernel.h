/*
 * kernel.h - guest kernels: fetched from Debian packages (never installed)
 * into images/kernels/<id>/ with a kernel.json describing them.
 */
#ifndef KPAIR_KERNEL_H
#define KPAIR_KERNEL_H

#include <jansson.h>

struct kernel {
	char *id;
	char *dir;		/* images/kernels/<id> */
	char *release;		/* uname -r of the kernel */
	char *arch;		/* Debian architecture: amd64, i386, arm64 */
	char *image;		/* path of the bootable image (vmlinuz) */
	char *moddir;		/* lib/modules/<release>, or NULL when all is built in */
	long page_size;
	json_t *json;		/* kernel.json as loaded (owned reference) */
};

void kernel_init(struct kernel *k);
void kernel_release(struct kernel *k);

/* images/kernels, under the project root (caller frees) */
char *kernel_store(void);
/*
 * "debian:6.1.0-57-amd64": download, unpack and describe; a cache hit when
 * present. "debian:latest-amd64": the newest ABI the registry offers.
 */
int kernel_fetch(const char *spec, struct kernel *out);

/* the prefix of a kernel spec that names a Debian package rather than a kernel in the store */
#define KERNEL_PKG_PREFIX "debian:"
/* 1 when @spec names a package to fetch (debian:...), 0 when a kernel in the store */
int kernel_spec_is_package(const char *spec);
/* @spec as the user gave it: a package is fetched (or found cached), anything else loaded */
int kernel_resolve(const char *spec, struct kernel *out);

/* Debian's kernel flavours (the end of a release) and their architectures; NULL-ended */
struct kflavour {
	const char *flavour, *arch;
};
extern const struct kflavour kflavours[];
/* @release's flavour suffix ("-686"), or NULL */
const char *kernel_flavour(const char *release);
/*
 * @pkg for @arch from the mirror's pool into @dir when no index apt read has it, found
 * beside the same ABI's package of another flavour; *@url says where (caller frees)
 */
int pool_fetch(const char *release, const char *pkg, const char *arch, const char *dir,
	       char **url);
/* the same without debian:latest-<flavour>, which kernel_fetch resolves first */
int kernel_fetch_abi(const char *spec, struct kernel *out);
/* load images/kernels/<id_or_dir>/kernel.json */
int kernel_load(const char *id_or_dir, struct kernel *k);
/*
 * the debian:<abi>-<flavour> spec to fetch for a missing kernel @id: as it is
 * when it has a flavour, else with @target_default's (caller frees)
 */
char *kernel_fetch_hint(const char *id, const char *target_default);
/* print every kernel in the store */
int kernel_list(void);

/*
 * The uncompressed ELF vmlinux of an x86 kernel built with CONFIG_PVH, which
 * QEMU boots through the PVH entry: no firmware menu, no decompression under
 * TCG. Taken once out of the bzImage's xz payload (liblzma) and cached beside
 * it. *path is set (caller frees) or left NULL when the kernel has no PVH.
 */
int kernel_pvh_image(const struct kernel *k, char **path);

/* is @path an ELF with the PVH entry note ("Xen", type 18)? */
int kernel_elf_has_pvh_note(const char *path);

/* write @dir/kernel.json (@j borrowed) atomically */
int kernel_write_json(const char *dir, json_t *j);
/* take the kernel store's lock (flock on images/kernels/.lock); returns the fd to close */
int kernel_store_lock(void);

/* page size and architecture read from a kernel .config text */
long kconfig_page_size(const char *config);
const char *kconfig_arch(const char *config);

#endif
