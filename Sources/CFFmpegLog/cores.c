/* The cores this process may run on. sched_getaffinity is a GNU extension that Swift's Glibc module does not
   export, and Foundation's activeProcessorCount counts every online core whatever the affinity (`taskset`). */
#define _GNU_SOURCE
#include <sched.h>
#include "include/CFFmpegLog.h"

int cff_affinity_cores(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set);
}
