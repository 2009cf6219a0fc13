/* cycles.h - the guest's time since its power-on, by the CPU's cycle counter */
#ifndef KPAIR_CYCLES_H
#define KPAIR_CYCLES_H

/* note where the counter is against CLOCK_MONOTONIC_RAW: the start of its rate measurement */
void cycles_start(void);

/*
 * Seconds from the virtual CPU's reset to now, by its cycle counter (x86's TSC,
 * arm64's virtual counter), or -1 where there is no counter, or its rate is
 * not architectural and less than MIN_RATE_S has passed since cycles_start().
 */
double cycles_since_reset(void);

#endif
