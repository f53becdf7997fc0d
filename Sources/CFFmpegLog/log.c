#include "CFFmpegLog.h"

#include <libavutil/log.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[512];
static int print_level = AV_LOG_QUIET;
static cff_log_sink sink = NULL;
static int sink_level = AV_LOG_QUIET;

static _Thread_local int demuxer_errors;

static void log_callback(void *avcl, int level, const char *fmt, va_list vl) {
    if (level <= AV_LOG_ERROR && avcl) {
        const AVClass *cls = *(const AVClass **)avcl;
        AVClassCategory category = cls ? (cls->get_category ? cls->get_category(avcl) : cls->category) : AV_CLASS_CATEGORY_NA;
        if (category == AV_CLASS_CATEGORY_DEMUXER) demuxer_errors++;
    }
    if (level <= AV_LOG_ERROR) {
        va_list copy;
        va_copy(copy, vl);
        vsnprintf(last_error, sizeof last_error, fmt, copy);
        va_end(copy);
        size_t n = strlen(last_error);
        while (n > 0 && (last_error[n - 1] == '\n' || last_error[n - 1] == ' ')) last_error[--n] = 0;
    }
    if (sink && level <= sink_level) {
        // One line as ffmpeg prints it ("[h264 @ 0x…] …"), without the newline, to the host's logger. FFmpeg sometimes
        // builds a line from several calls: the pieces are gathered (per thread) until one ends it.
        static _Thread_local char pending[1024];
        static _Thread_local int print_prefix = 1;
        char piece[1024];
        va_list copy;
        va_copy(copy, vl);
        av_log_format_line2(avcl, level, fmt, copy, piece, sizeof piece, &print_prefix);
        va_end(copy);
        size_t used = strlen(pending);
        snprintf(pending + used, sizeof pending - used, "%s", piece);
        size_t n = strlen(pending);
        int ended = n > 0 && pending[n - 1] == '\n';
        if (!ended && n < sizeof pending - 1) return;
        while (n > 0 && (pending[n - 1] == '\n' || pending[n - 1] == ' ')) pending[--n] = 0;
        if (n > 0) sink(level, pending);
        pending[0] = 0;
        return;
    }
    if (level <= print_level) av_log_default_callback(avcl, level, fmt, vl);
}

void cff_set_log_sink(cff_log_sink s, int level) {
    sink_level = s ? level : AV_LOG_QUIET;
    sink = s;
    if (s && level > av_log_get_level()) av_log_set_level(level);
    av_log_set_callback(log_callback);
}

void cff_install_log(int level) {
    print_level = level;
    // SVT-AV1 (libsvtav1) prints its configuration to stderr itself unless told its level (1: errors only); a
    // user's own SVT_LOG wins. Set here, at start-up, before any thread could read the environment.
    setenv("SVT_LOG", "1", 0);
    av_log_set_level(level > AV_LOG_ERROR ? level : AV_LOG_ERROR);
    av_log_set_callback(log_callback);
}

void cff_take_last_error(char *out, int size) {
    snprintf(out, (size_t)size, "%s", last_error);
    last_error[0] = 0;
}

int cff_take_demuxer_errors(void) {
    int n = demuxer_errors;
    demuxer_errors = 0;
    return n;
}
