#ifndef MEDIAEXPORT_CFFMPEG_SHIM_H
#define MEDIAEXPORT_CFFMPEG_SHIM_H

#include <errno.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/dovi_meta.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/cpu.h>
#include <libavutil/dict.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libavutil/sha.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

/* Build-time check: mediaexport is written against FFmpeg 5.1 (Debian 12). */
#if LIBAVFORMAT_VERSION_MAJOR != 59 || LIBAVCODEC_VERSION_MAJOR != 59 || LIBAVUTIL_VERSION_MAJOR != 57 \
    || LIBSWSCALE_VERSION_MAJOR != 6 || LIBSWRESAMPLE_VERSION_MAJOR != 4 || LIBAVFILTER_VERSION_MAJOR != 8
#error "mediaexport needs FFmpeg 5.1 (libavformat 59, libavcodec 59, libavutil 57, libswscale 6, libswresample 4, libavfilter 8)"
#endif

/* Macros Swift cannot import, as functions/constants. */
static inline int cff_averror(int e) { return AVERROR(e); }
static inline int cff_averror_eof(void) { return AVERROR_EOF; }
static inline int cff_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int cff_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int cff_averror_exit(void) { return AVERROR_EXIT; }
static inline int cff_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int cff_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
static inline int cff_averror_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
static inline int64_t cff_nopts_value(void) { return AV_NOPTS_VALUE; }
/* An index entry an edit list hides (MP4/MOV: a cut's lead-in, encoder priming): stored, never shown. The flag
   shares a bit field with the entry's size, which Swift reads awkwardly. */
static inline int cff_index_entry_discarded(const AVIndexEntry *e) { return (e->flags & AVINDEX_DISCARD_FRAME) != 0; }
static inline AVRational cff_time_base_q(void) { return AV_TIME_BASE_Q; }
static inline unsigned int cff_mktag(char a, char b, char c, char d) { return MKTAG(a, b, c, d); }
static inline int cff_codec_flag_global_header(void) { return AV_CODEC_FLAG_GLOBAL_HEADER; }
static inline int cff_codec_flag_pass1(void) { return AV_CODEC_FLAG_PASS1; }
static inline int cff_codec_flag_pass2(void) { return AV_CODEC_FLAG_PASS2; }
static inline int cff_fmt_globalheader(void) { return AVFMT_GLOBALHEADER; }
static inline int cff_fmt_nofile(void) { return AVFMT_NOFILE; }
static inline int cff_disposition_attached_pic(void) { return AV_DISPOSITION_ATTACHED_PIC; }
static inline int cff_disposition_default(void) { return AV_DISPOSITION_DEFAULT; }

/* Versions of the libraries actually loaded at run time. */
static inline unsigned cff_avformat_version(void) { return avformat_version(); }
static inline unsigned cff_avcodec_version(void) { return avcodec_version(); }
static inline unsigned cff_avutil_version(void) { return avutil_version(); }
static inline unsigned cff_swscale_version(void) { return swscale_version(); }
static inline unsigned cff_swresample_version(void) { return swresample_version(); }
static inline unsigned cff_avfilter_version(void) { return avfilter_version(); }

/* The cancel flag is shared by threads (a signal queue, the stall watchdog's timer, the exporting thread):
   it is only ever read and written atomically. 0 = running, 1 = cancelled, 2 = stalled. */
static inline int cff_flag_load(volatile int *flag) { return __atomic_load_n(flag, __ATOMIC_SEQ_CST); }
static inline void cff_flag_store(volatile int *flag, int value) { __atomic_store_n(flag, value, __ATOMIC_SEQ_CST); }
/* Sets the flag to `desired` only if it holds `expected`; returns 1 when it did. */
static inline int cff_flag_replace(volatile int *flag, int expected, int desired) {
    return __atomic_compare_exchange_n(flag, &expected, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* Interrupt callback: FFmpeg polls this during blocking I/O; a non-zero flag aborts with AVERROR_EXIT. */
static int cff_interrupt_trampoline(void *opaque) {
    volatile int *flag = (volatile int *)opaque;
    return flag ? cff_flag_load(flag) : 0;
}
static inline void cff_set_interrupt(AVFormatContext *ctx, volatile int *flag) {
    ctx->interrupt_callback.callback = cff_interrupt_trampoline;
    ctx->interrupt_callback.opaque = (void *)flag;
}

/* Quiet FFmpeg's own logging to stderr below this level (the tool reports errors itself). */
static inline void cff_set_log_level(int level) { av_log_set_level(level); }
static inline int cff_log_quiet(void) { return AV_LOG_QUIET; }
static inline int cff_log_error(void) { return AV_LOG_ERROR; }
static inline int cff_log_warning(void) { return AV_LOG_WARNING; }

/* Default channel layout for a count (5.1 API). */
static inline void cff_default_layout(AVChannelLayout *layout, int channels) {
    av_channel_layout_default(layout, channels);
}

/* Output through descriptors (implemented in CFFmpegLog/output_io.c). Its header sits beside the .c file
   for the same reason as InputGuard.h below. */
#include "../CFFmpegLog/OutputIO.h"

/* Guarded input opening (implemented in CFFmpegLog/input_guard.c). Its header sits beside the .c file, outside
   CFFmpegLog/include: a header in that folder belongs to the CFFmpegLog module (umbrella CFFmpegLog.h), so
   including it here would import that module, where it is not exported, instead of declaring anything. */
#include "../CFFmpegLog/InputGuard.h"

#endif
