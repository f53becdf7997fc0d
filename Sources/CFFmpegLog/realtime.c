/* SVT-AV1, run as root, raises threads to real-time priority (SCHED_FIFO 99), among them the thread that opens the
   encoder: that thread, and every process it starts afterwards, then runs at a priority that no other work on the
   machine gets a core from (seen here: an export's thread, then six test exports pinned to one core that never
   finished, and a headless browser spinning). An exporter never needs real-time priority: the calling thread gives
   up the right to it (CAP_SYS_NICE, from its effective, permitted and inheritable sets; capabilities are per
   thread on Linux, and threads it creates inherit them), so such requests fail and the library runs at normal
   priority. Called by every thread before it opens an encoder; idempotent; a thread without the capability loses
   nothing. */
#define _GNU_SOURCE
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "include/CFFmpegLog.h"

int cff_drop_realtime_priority(void) {
    struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
    if (syscall(SYS_capget, &header, data) != 0) return -1;
    unsigned word = CAP_SYS_NICE / 32, bit = 1u << (CAP_SYS_NICE % 32);
    data[word].effective &= ~bit;
    data[word].permitted &= ~bit;
    data[word].inheritable &= ~bit;
    return (int)syscall(SYS_capset, &header, data);
}
