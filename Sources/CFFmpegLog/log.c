#include "CFFmpegLog.h"

#include <libavutil/log.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[512];
static int print_level = AV_LOG_QUIET;

static void log_callback(void *avcl, int level, const char *fmt, va_list vl) {
    if (level <= AV_LOG_ERROR) {
        va_list copy;
        va_copy(copy, vl);
        vsnprintf(last_error, sizeof last_error, fmt, copy);
        va_end(copy);
        size_t n = strlen(last_error);
        while (n > 0 && (last_error[n - 1] == '\n' || last_error[n - 1] == ' ')) last_error[--n] = 0;
    }
    if (level <= print_level) av_log_default_callback(avcl, level, fmt, vl);
}

void cff_install_log(int level) {
    print_level = level;
    av_log_set_level(level > AV_LOG_ERROR ? level : AV_LOG_ERROR);
    av_log_set_callback(log_callback);
}

void cff_take_last_error(char *out, int size) {
    snprintf(out, (size_t)size, "%s", last_error);
    last_error[0] = 0;
}
