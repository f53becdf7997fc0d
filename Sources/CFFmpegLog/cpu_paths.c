/* Which code paths the libraries' CPU dispatch may take, so that a picture does not depend on the CPU it was
   made on (issue 28; docs/regress.md, "Reproducible outputs").

   FFmpeg's own SIMD is chosen from av_get_cpu_flags(), which av_force_cpu_flags() fixes process-wide. zimg (the
   zscale filter's library, used for HDR tone mapping) chooses its own: FFmpeg 5.1's zscale asks for
   ZIMG_CPU_AUTO_64B, which takes zimg's AVX-512 kernels where the CPU has them, and those give a different (and
   noisier) picture than the AVX2 ones. The filter has no option for it, so this file defines
   zimg_filter_graph_build itself: the executable's definition comes first in the process's symbol lookup, so
   libavfilter's call lands here, and the real function (found with RTLD_NEXT) is called with the CPU type this
   file chooses. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <zimg.h>
#include <libavutil/cpu.h>
#include "include/CFFmpegLog.h"

/* AUTO: the best kernels short of 512-bit ones, the same on an AVX-512 CPU as on an AVX2 one. */
static _Atomic int zimg_cpu = ZIMG_CPU_AUTO;
static _Atomic int zimg_calls = 0;

typedef zimg_filter_graph *(*graph_build_fn)(const zimg_image_format *, const zimg_image_format *,
                                             const zimg_graph_builder_params *);

zimg_filter_graph *zimg_filter_graph_build(const zimg_image_format *src, const zimg_image_format *dst,
                                           const zimg_graph_builder_params *params) {
    static _Atomic(graph_build_fn) real = NULL;
    graph_build_fn build = atomic_load(&real);
    if (!build) {
        build = (graph_build_fn)dlsym(RTLD_NEXT, "zimg_filter_graph_build");
        if (!build) return NULL;  /* zimg's own failure value: the filter reports it */
        atomic_store(&real, build);
    }
    if (!params) return build(src, dst, params);  /* zimg's defaults; FFmpeg's zscale always gives its own */
    zimg_graph_builder_params chosen = *params;
    chosen.cpu_type = (zimg_cpu_type_e)atomic_load(&zimg_cpu);
    atomic_fetch_add(&zimg_calls, 1);
    return build(src, dst, &chosen);
}

/* The CPU's own flags, kept when they are pinned: what a record of the environment should name. */
static _Atomic int detected_flags = -1;

int cff_detected_cpu_flags(void) {
    int kept = atomic_load(&detected_flags);
    return kept != -1 ? kept : av_get_cpu_flags();
}

/* x86-64-v2: what every x86-64 CPU since 2009-2011 has (Nehalem, Bulldozer), up to SSE4.2. */
static const int pinned_flags = AV_CPU_FLAG_MMX | AV_CPU_FLAG_MMXEXT | AV_CPU_FLAG_SSE | AV_CPU_FLAG_SSE2 | AV_CPU_FLAG_SSE3 |
                                AV_CPU_FLAG_SSSE3 | AV_CPU_FLAG_SSE4 | AV_CPU_FLAG_SSE42 | AV_CPU_FLAG_CMOV;

int cff_pin_cpu_paths(void) {
    int none = -1;
    atomic_compare_exchange_strong(&detected_flags, &none, av_get_cpu_flags());
    if ((cff_detected_cpu_flags() & pinned_flags) != pinned_flags) return 0;
    /* FFmpeg's code for exactly those features runs the same on every CPU that has them. */
    av_force_cpu_flags(pinned_flags);
    /* zimg's SSE2 kernels: every x86-64 CPU has them, they use no FMA, and they run about as fast as its AVX2
       ones for tone mapping (its C code costs twice the CPU of a whole export). */
    atomic_store(&zimg_cpu, ZIMG_CPU_X86_SSE2);
    return 1;
}

int cff_zimg_graphs_built(void) { return atomic_load(&zimg_calls); }
