/*
 * libvirt-remote.h - what the libvirt backend needs for a host that does not
 * share this machine's files: the kernel, initramfs and disk images travel as
 * storage volumes (virStorageVolUpload into the host's "kpair" pool, disks as
 * sparse streams), and the console and the results channel come back as
 * libvirt streams (virDomainOpenConsole, virDomainOpenChannel) opened while
 * the domain is still paused, so no byte is missed.
 */
#ifndef KPAIR_LIBVIRT_REMOTE_H
#define KPAIR_LIBVIRT_REMOTE_H

#include <libvirt/libvirt.h>

#include "backends/vm.h"
#include "util.h"

#define LV_POOL "kpair"
#define LV_POOL_DIR "/var/lib/kpair/pool"
#define LV_NFILES (2 + VM_MAX_DISKS)

/* the run's files on the host: [0] kernel, [1] initramfs, [2...] disks */
struct lv_stage {
	virStoragePoolPtr pool;
	virStorageVolPtr vols[LV_NFILES];
	char *paths[LV_NFILES];		/* the volumes' paths on the host (owned) */
	int n;
	double upload_s;		/* time the uploads took */
	unsigned long long bytes;	/* bytes sent (holes are not sent) */
};

void lv_stage_init(struct lv_stage *st);
/* delete the run's volumes from the host */
void lv_stage_release(struct lv_stage *st);
/* upload @s's kernel, initramfs and disks as volumes named @prefix-... */
int lv_stage_upload(struct lv_stage *st, virConnectPtr conn, const char *prefix,
		    const struct vm_spec *s);

/*
 * Open the console and the org.kpair.results channel of @dom (created
 * paused), resume it, and watch both streams until the domain is gone or a
 * deadline passes, as the socket watch loop does.
 */
int lv_stream_watch(virConnectPtr conn, virDomainPtr dom, const struct vm_spec *s,
		    struct channel *ch, struct vm_result *res, int log_fd, struct text *con,
		    int *timed_out);

#endif
