#include <malloc.h>
#include "CFFmpegLog.h"

int cff_fix_mmap_threshold(int bytes) {
#ifdef M_MMAP_THRESHOLD
    return mallopt(M_MMAP_THRESHOLD, bytes);
#else
    (void)bytes;
    return 0;
#endif
}

int cff_release_free_memory(void) {
    return malloc_trim(0);
}
