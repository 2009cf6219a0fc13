/*
 * cycles.c - the guest's time since its power-on.
 *
 * The kernel's clocks (CLOCK_BOOTTIME, the printk timestamps) start only once
 * its timekeeping is set up, after the firmware and the kernel's early setup
 * have run. The CPU's cycle counter starts at the virtual CPU's reset: QEMU
 * starts x86's TSC and arm64's virtual counter at 0 when the machine starts
 * (KVM's TSC too, when it creates the vCPU), so the counter read in the agent,
 * over its rate, is the guest's whole time since power-on. arm64 has the rate
 * in CNTFRQ_EL0; x86's TSC rate is measured against CLOCK_MONOTONIC_RAW from
 * cycles_start() on, which needs MIN_RATE_S between the two readings for
 * parts per million.
 */
#include <stdint.h>
#include <time.h>

#include "cycles.h"

#define MIN_RATE_S 0.05

static double mono_raw(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#if defined(__x86_64__) || defined(__i386__)
static uint64_t counter(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static double counter_hz(void)
{
	return 0;	/* not architectural: measured */
}
#elif defined(__aarch64__)
static uint64_t counter(void)
{
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

static double counter_hz(void)
{
	uint64_t f;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
	return (double)f;
}
#else
static uint64_t counter(void)
{
	return 0;
}

static double counter_hz(void)
{
	return 0;
}
#endif

struct stamp {
	uint64_t c;
	double t;	/* CLOCK_MONOTONIC_RAW at the middle of the counter's reading */
};

static struct stamp start;

static void stamp_now(struct stamp *s)
{
	double a = mono_raw(), b;

	s->c = counter();
	b = mono_raw();
	s->t = (a + b) / 2;
}

void cycles_start(void)
{
	mono_raw();	/* the first clock_gettime faults its vDSO pages in: not timed */
	stamp_now(&start);
}

double cycles_since_reset(void)
{
	double hz = counter_hz();
	struct stamp now;

	stamp_now(&now);
	if (!now.c || !start.c)
		return -1;
	if (hz <= 0) {
		if (now.t - start.t < MIN_RATE_S || now.c <= start.c)
			return -1;
		hz = (now.c - start.c) / (now.t - start.t);
	}
	return now.c / hz;
}
