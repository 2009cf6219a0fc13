/*
 * record.h - the guest side of the results channel: newline-delimited JSON
 * records, each with a sequence number, written whole to the virtio-serial port.
 *
 *   {"type":"hello","seq":0,...[,"boot":B]}    once, first (B: the kernel's boot_id)
 *   {"type":"sample","seq":N,"metric":M,"unit":U,"value":V[,"better":"lower"|"higher"]}
 *   {"type":"error","seq":N,"stage":S,"errno":E,"message":T}
 *   {"type":"counters","seq":N,"values":{"vmstat.pgfault":123,...}}   after the workload
 *   {"type":"done","seq":N,"samples":K,"uptime":T,"workload_s":W[,"poweron":P][,"boot":B]}   last
 *
 * The harness (harness/channel.c) holds the schema every record must match.
 */
#ifndef KPAIR_RECORD_H
#define KPAIR_RECORD_H

#include <stddef.h>
#include <stdint.h>

#define REC_MAX 4096	/* longest record, newline included; the harness rejects longer */
/* a record echoed on the console (kpair.echo=1): what LAVA's monitors and kpair look for */
#define REC_ECHO_PREFIX "kpair-record: "
/*
 * the line after the last record, echoed as the agent powers off: LAVA's monitor ends on it, so
 * the done record before it is logged whole (and a job of several runs goes on to the next boot)
 */
#define REC_ECHO_END "kpair-end"
/*
 * with kpair.echo=2 (kpair export lava), before REC_ECHO_END: REC_ECHO_COUNTERS, then one
 * "kpair-counter: NAME DELTA" line a kernel counter that moved, for a LAVA monitor of their own
 */
#define REC_ECHO_COUNTERS "kpair-counters-begin"
#define REC_ECHO_COUNTER "kpair-counter: "

void rec_set_fd(int fd);
/*
 * also write each record to @fd (the console) as one "kpair-record: <record>" line; with
 * @counters, the counters a line each too (REC_ECHO_COUNTERS)
 */
void rec_set_echo(int fd, int counters);
/* the counters' lines if wanted, then REC_ECHO_END on the echo console (nothing without echo) */
void rec_echo_end(void);
/* @init_uptime: the uptime when the agent started as init; @modules_s: its finit_module time */
int rec_hello(const char *workload, double uptime, double init_uptime, double modules_s,
	      long page_size);
int rec_sample(const char *metric, const char *unit, double value);
/* the same with the direction said (lower, higher) for a unit that does not tell it; NULL: none */
int rec_sample_better(const char *metric, const char *unit, double value, const char *better);
/*
 * {"type":"counters","seq":N,"values":{NAME:V,...}}: the kernel counters' deltas over the
 * workload (counters.c), as many records as they need; the first has "snapshot_s", what
 * reading them cost (both snapshots, outside the timed region)
 */
int rec_counters(size_t n, char *const *names, const long long *values, double snapshot_s);
int rec_error(const char *stage, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* @poweron: the guest's seconds since power-on at done (cycles.h), left out if < 0 */
int rec_done(double uptime, double workload_s, double poweron);
uint64_t rec_samples(void);
/* test-only fault injection (guest/wl-garble.c): the next record's seq, and raw bytes as they are */
uint64_t rec_next_seq(void);
int rec_raw(const void *buf, size_t len);

#endif
