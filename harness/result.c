/* result.c - result.json of a run and the terminal summary */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "result.h"
#include "util.h"

char *tail_lines(const char *text, int lines)
{
	const char *p = text + strlen(text);

	while (p > text && (p[-1] == '\n'))
		p--;
	while (p > text && lines > 0) {
		p--;
		if (*p == '\n' && --lines == 0) {
			p++;
			break;
		}
	}
	return xstrdup(p);
}

static char *host_cpu(void)
{
	char *buf, *p, *cpu = NULL;

	if (read_file("/proc/cpuinfo", &buf, NULL) < 0)
		return xstrdup("unknown");
	p = strstr(buf, "model name");
	if (p && (p = strchr(p, ':')))
		cpu = xasprintf("%.*s", (int)strcspn(p + 2, "\n"), p + 2);
	free(buf);
	return cpu ? cpu : xstrdup("unknown");
}


/*
 * A panic's excerpt starts a few lines before the panic line: the call
 * trace and registers after it would push it out of the last 40 lines.
 */
static char *panic_excerpt(const struct vm_result *vm)
{
	const char *tail = vm->console_tail, *p = strstr(tail, vm->panic_line);
	int before = 0, after = 0;
	const char *e;

	if (!p)
		return tail_lines(tail, 40);
	while (p > tail && before < 4)
		before += *--p == '\n';
	if (*p == '\n')
		p++;
	for (e = p; *e && after < 60; e++)
		after += *e == '\n';
	return xasprintf("%.*s", (int)(e - p), p);
}

static json_t *jnum(double v)
{
	return v < 0 ? json_null() : json_real(v);
}

static json_t *job_json(const struct job *job)
{
	json_t *params = json_object();
	int i;

	for (i = 0; job->wl && job->wl->params[i].name; i++)
		json_object_set_new(params, job->wl->params[i].name, json_integer((json_int_t)job->pval[i]));
	return json_pack("{s:s, s:s, s:s, s:o, s:f, s:f, s:I, s:I, s:s, s:I, s:s, s:s,"
			 " s:s, s:{s:s, s:I, s:I, s:s, s:s, s:s, s:s}}",
			 "file", job->file, "name", job->name, "workload", job->workload,
			 "params", params, "timeout_s", job->timeout_ms / 1000.0,
			 "boot_timeout_s", job->boot_timeout_ms / 1000.0,
			 "memory", (json_int_t)job->memory, "cpus", (json_int_t)job->cpus,
			 "cmdline", job->cmdline, "seed", (json_int_t)job->seed,
			 "mode", job->mode, "pin", job->pin, "host_cache", job->host_cache, "disk",
			 "fs", job->fs, "blocksize", (json_int_t)job->blocksize,
			 "size", (json_int_t)job->disk_size, "mkfs_options", job->mkfs_options,
			 "mount_options", job->mount_options, "backing", job->backing,
			 "cache", job->cache);
}

double guest_poweron_at_hello(const json_t *hello, const json_t *done)
{
	double up_hello, up_done, p;

	if (!hello || !done || !json_is_number(json_object_get(done, "poweron")))
		return -1;
	up_hello = json_number_value(json_object_get(hello, "uptime"));
	up_done = json_number_value(json_object_get(done, "uptime"));
	p = json_number_value(json_object_get(done, "poweron"));
	/*
	 * The guest's seconds since power-on at done, back to hello along its own
	 * clock. A counter behind the kernel's clock did not start at the CPU's
	 * reset (or does not run with it, as under icount): no figure, rather than
	 * a wrong one.
	 */
	if (up_hello <= 0 || up_done < up_hello || p < up_done)
		return -1;
	return p - (up_done - up_hello);
}

json_t *result_json(const struct run_info *ri)
{
	const struct vm_result *vm = ri->vm;
	const struct samples *s = ri->samples;
	enum run_status st = ri->setup_error ? RUN_SETUP_FAILED : vm->status;
	json_t *j, *times, *mods = json_array(), *guest = json_null();
	double guest_boot = -1, workload = -1, guest_done = -1, modules = -1, poweron = -1, init = -1;
	char *cpu = host_cpu(), *excerpt;
	struct utsname u;
	int i;

	uname(&u);
	for (i = 0; ri->mods && i < ri->mods->n; i++)
		json_array_append_new(mods, json_string(ri->mods->path[i]));
	if (s && s->hello) {
		guest = json_pack("{s:O, s:O, s:O, s:O}", "release", json_object_get(s->hello, "release"),
				  "version", json_object_get(s->hello, "version"),
				  "machine", json_object_get(s->hello, "machine"),
				  "page_size", json_object_get(s->hello, "page_size"));
		guest_boot = json_number_value(json_object_get(s->hello, "uptime"));
		if (json_object_get(s->hello, "modules_s"))
			modules = json_number_value(json_object_get(s->hello, "modules_s"));
		if (json_object_get(s->hello, "init_uptime"))
			init = json_number_value(json_object_get(s->hello, "init_uptime"));
	}
	if (s && s->done) {
		workload = json_number_value(json_object_get(s->done, "workload_s"));
		guest_done = json_number_value(json_object_get(s->done, "uptime"));
		poweron = guest_poweron_at_hello(s->hello, s->done);
	}
	times = json_pack("{s:f, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			  "prepare_s", ri->prepare_s,
			  "first_console_s", jnum(vm ? vm->first_console : -1),
			  "boot_s", jnum(vm ? vm->hello : -1),
			  "guest_boot_s", jnum(guest_boot),
			  /* power-on to hello by the guest's cycle counter: guest_boot_s, and
			   * the firmware and kernel setup before the kernel's clock starts */
			  "guest_poweron_s", jnum(poweron),
			  /* of guest_boot_s, the kernel's own boot: its uptime as it ran init */
			  "init_s", jnum(init),
			  /* of guest_boot_s, the agent's finit_module of every module */
			  "modules_s", jnum(modules),
			  "first_sample_s", jnum(vm ? vm->first_sample : -1),
			  "workload_s", jnum(workload),
			  "done_s", jnum(vm ? vm->done : -1),
			  /* the guest's uptime at done: boot, mount, workload, umount and sync */
			  "guest_done_s", jnum(guest_done),
			  "wall_s", jnum(vm ? vm->exit : -1),
			  /* the guest's boot from its power-on where known */
			  "overhead_ratio", jnum(vm && vm->exit > 0 && guest_boot > 0 && workload >= 0 ?
						 vm->exit / ((poweron > 0 ? poweron : guest_boot) +
							     workload) : -1));
	excerpt = vm && vm->panic_line[0] ? panic_excerpt(vm) :
		  tail_lines(vm ? vm->console_tail : "", st == RUN_OK && !(vm && vm->warnings) ? 0 : 40);
	j = json_pack("{s:i, s:s, s:s, s:s, s:s, s:i, s:s, s:o, s:O, s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s},"
		      " s:s, s:s, s:{s:s, s:s, s:s, s:i}, s:{s:s, s:s, s:I},"
		      " s:{s:s, s:s, s:I}, s:{s:I, s:b, s:o}, s:o, s:o, s:o, s:I, s:o,"
		      " s:{s:i, s:s}, s:s}",
		      "format", 1, "run_id", ri->run_id, "started", ri->started,
		      "status", run_statuses[st].name,
		      "reason", ri->setup_error ? ri->setup_error : vm->reason,
		      "exit_code", run_statuses[st].exit_code,
		      "backend", backend_find(ri->backend)->name,
		      "job", job_json(ri->job),
		      "kernel", ri->kernel->json ? ri->kernel->json : json_null(),
		      "target", "name", ri->target->name, "arch", ri->target->arch,
		      "machine", ri->target->machine, "qemu", ri->target->qemu,
		      "cpu", ri->target->cpu, "console", ri->target->console, "agent", ri->target->agent,
		      "accel", ri->accel ? ri->accel : "", "accel_reason", ri->accel_why ? ri->accel_why : "",
		      "qemu", "version", ri->qemu_version ? ri->qemu_version : "",
		      "kernel_image", ri->boot_image ? ri->boot_image : "",
		      "cmdline", vm && vm->cmdline ? vm->cmdline : "", "pid", vm ? vm->qemu_pid : 0,
		      "host", "cpu", cpu, "kernel", u.release, "cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN),
		      "disk", "mkfs", ri->disk && ri->disk->mkfs_cmd ? ri->disk->mkfs_cmd : "",
		      "cache", ri->disk && ri->disk->cache ? ri->disk->cache : "",
		      "size", (json_int_t)ri->job->disk_size,
		      "initramfs", "bytes", (json_int_t)ri->initramfs_bytes, "gzip", ri->initramfs_gzip,
		      "modules", mods,
		      "guest", guest,
		      "times", times,
		      "samples", s ? samples_by_metric(s) : json_object(),
		      "records", (json_int_t)(s ? json_array_size(s->list) : 0),
		      "errors", s ? json_incref(s->errors) : json_array(),
		      "console", "warnings", vm ? vm->warnings : 0,
		      "first_warning", vm ? vm->first_warning : "",
		      "console_excerpt", excerpt);
	if (j) {	/* how the host was set up for the measurement */
		json_t *h = json_object_get(j, "host");

		json_object_set_new(h, "pinned_cpu", ri->pinned_cpu >= 0 ?
				    json_integer(ri->pinned_cpu) : json_null());
		json_object_set_new(h, "pinned_io_cpu", ri->job && strcmp(ri->job->pin_io, "none") ?
				    json_integer(job_pin_io_cpu(ri->job)) : json_null());
		json_object_set_new(h, "vcpu_threads_pinned", json_integer(vm ? vm->vcpus_pinned : 0));
		json_object_set_new(h, "page_cache", ri->cache_drop_s >= 0 ?
				    json_pack("{s:s, s:f}", "action", "dropped", "seconds", ri->cache_drop_s) :
				    json_pack("{s:s}", "action", "kept"));
	}
	if (j && s && s->counters)	/* which kernel counters moved over the workload */
		json_object_set(j, "counters", s->counters);
	if (j && s && s->counters && s->snapshot_s >= 0)	/* and what reading them cost */
		json_object_set_new(j, "counters_snapshot_s", json_real(s->snapshot_s));
	if (j && ri->profile)	/* a profiled run: its profile, or why there is none */
		json_object_set_new(j, "profile", ri->profile_error ?
				    json_pack("{s:s, s:s}", "profiler", ri->profile, "absent",
					      ri->profile_error) :
				    json_pack("{s:s, s:s}", "profiler", ri->profile, "file",
					      "profile.json"));
	if (j && ri->dest) {	/* a host ran it: which one, and what sending its files cost */
		json_t *h = json_object_get(j, "host");

		json_object_set_new(h, "uri", json_string(ri->dest));
		json_object_set_new(h, "name", json_string(vm && vm->where[0] ? vm->where : "?"));
		if (vm && vm->sent_s > 0)
			json_object_set_new(h, "upload", json_pack("{s:f, s:I}", "seconds",
				vm->sent_s, "bytes", (json_int_t)vm->sent_bytes));
	}
	free(excerpt);
	free(cpu);
	return j;
}

int result_write(const struct run_info *ri)
{
	char *path = xasprintf("%s/result.json", ri->dir);
	json_t *j = result_json(ri);
	char *text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
	int ret;

	if (!text) {
		ret = error("cannot encode result.json for run '%s'", ri->run_id);
	} else {
		char *t2 = xasprintf("%s\n", text);

		ret = write_file_atomic(path, t2, strlen(t2));
		free(t2);
	}
	free(text);
	json_decref(j);
	free(path);
	return ret;
}

void result_print(const struct run_info *ri)
{
	const struct vm_result *vm = ri->vm;
	enum run_status st = ri->setup_error ? RUN_SETUP_FAILED : vm->status;
	const char *k;
	json_t *by, *m;

	printf("run %s: %s", ri->run_id, run_statuses[st].name);
	if (st != RUN_OK)
		printf(": %s", ri->setup_error ? ri->setup_error : vm->reason);
	printf("\n");
	if (vm && vm->hello >= 0)
		printf("  %s, boot %.2f s, wall %.2f s, kernel %s (%s)\n", ri->accel, vm->hello,
		       vm->exit, ri->kernel->id, ri->kernel->release);
	if (ri->samples) {
		by = samples_by_metric(ri->samples);
		json_object_foreach(by, k, m) {
			json_t *vals = json_object_get(m, "values");

			printf("  %-24s %16.10g %s%s\n", k,
			       json_number_value(json_array_get(vals, 0)),
			       json_string_value(json_object_get(m, "unit")),
			       json_array_size(vals) > 1 ? " (first of many)" : "");
		}
		json_decref(by);
	}
	if (vm && vm->warnings)
		printf("  console: %d warning line(s), first: %s\n", vm->warnings, vm->first_warning);
	if (st != RUN_OK && vm && vm->console_tail[0]) {
		char *t = tail_lines(vm->console_tail, 12);

		printf("  console (last lines):\n%s\n", t);
		free(t);
	}
	printf("  -> %s/result.json\n", ri->dir);
}
