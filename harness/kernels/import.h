/*
 * import.h - kernels a developer built themselves, taken into the store as
 * they are: a build directory (in-tree or O=) or an image + modules + config.
 * Checked (architecture, page size, an image that boots: a bzImage, an arm64
 * Image, or an ELF with the PVH note; modules for the image's release), never
 * rebuilt, and stored under an id derived from the files, so importing the
 * same files again is a cache hit.
 */
#ifndef KPAIR_IMPORT_H
#define KPAIR_IMPORT_H

struct import_opts {
	const char *dir;	/* a build directory, or NULL */
	const char *image;	/* or an image ... */
	const char *modules;	/* ... lib/modules/<release> or an INSTALL_MOD_PATH (optional) */
	const char *config;	/* ... and its .config */
};

/* import; *id gets the store id (caller frees). -2 on bad input, -1 on other errors */
int kernel_import(const struct import_opts *o, char **id);

/* `kpair kernel import DIR | --image F [--modules DIR] --config F`: exit status */
int kernel_import_cmd(int argc, char **argv);

#endif
