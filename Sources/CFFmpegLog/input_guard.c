#include "InputGuard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libavformat/avio.h>
#include <libavutil/avstring.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/mem.h>

/* Marks the guard in AVFormatContext.opaque: nested contexts share the caller's opaque (avformat.h, io_open),
   and a context we did not set up must not be mistaken for one we did. */
#define GUARD_MAGIC 0x6d786967u
/* libavformat's own default (IO_BUFFER_SIZE) for files. */
#define GUARD_BUFFER_SIZE 32768

typedef struct InputGuard {
    unsigned magic;
    int fd;
    AVIOContext *pb;
    volatile int *interrupt;
    int refused;
    char refused_url[256];
} InputGuard;

static int guard_interrupted(const InputGuard *g) {
    return g->interrupt && __atomic_load_n(g->interrupt, __ATOMIC_SEQ_CST) != 0;
}

static int guard_interrupt_callback(void *opaque) { return guard_interrupted(opaque); }

static int guard_read(void *opaque, uint8_t *buf, int size) {
    InputGuard *g = opaque;
    for (;;) {
        if (guard_interrupted(g)) return AVERROR_EXIT;
        ssize_t n = read(g->fd, buf, (size_t)size);
        if (n > 0) return (int)n;
        if (n == 0) return AVERROR_EOF;
        if (errno != EINTR) return AVERROR(errno);
    }
}

static int64_t guard_seek(void *opaque, int64_t offset, int whence) {
    InputGuard *g = opaque;
    whence &= ~AVSEEK_FORCE;
    if (whence == AVSEEK_SIZE) {
        struct stat st;
        return fstat(g->fd, &st) == 0 ? (int64_t)st.st_size : AVERROR(errno);
    }
    off_t at = lseek(g->fd, (off_t)offset, whence);
    return at < 0 ? AVERROR(errno) : (int64_t)at;
}

/* Every open FFmpeg asks for is a nested one: the input itself was opened by cff_input_open. */
static int guard_refuse_open(AVFormatContext *s, AVIOContext **pb, const char *url, int flags, AVDictionary **options) {
    (void)flags;
    (void)options;
    *pb = NULL;
    InputGuard *g = s ? s->opaque : NULL;
    if (g && g->magic == GUARD_MAGIC && g->refused++ == 0)
        snprintf(g->refused_url, sizeof g->refused_url, "%s", url ? url : "");
    /* The URL is the upload's text: not logged (the caller reports it, cut and escaped). */
    av_log(s, AV_LOG_ERROR, "Refused to open another file named by the input\n");
    return AVERROR(EPERM);
}

/* Frees the AVIOContext (its buffer may have been replaced by libavformat, hence pb->buffer) and the
   descriptor. The format context that used them must already be gone. */
static void guard_free(InputGuard *g) {
    if (!g) return;
    if (g->pb) {
        av_freep(&g->pb->buffer);
        avio_context_free(&g->pb);
    }
    if (g->fd >= 0) close(g->fd);
    g->magic = 0;
    av_free(g);
}

static CFFInputStatus finish(CFFInputResult *r, CFFInputStatus status) {
    r->status = status;
    return status;
}

static CFFInputStatus system_error(CFFInputResult *r, int e) {
    r->sys_errno = e;
    return finish(r, CFF_INPUT_SYSTEM_ERROR);
}

static CFFInputStatus file_type(CFFInputResult *r, const struct stat *st) {
    if (S_ISDIR(st->st_mode)) return finish(r, CFF_INPUT_DIRECTORY);
    if (!S_ISREG(st->st_mode)) return finish(r, CFF_INPUT_NOT_REGULAR);
    return CFF_INPUT_OPENED;
}

CFFInputStatus cff_input_open(AVFormatContext **out, const char *path, const char *format_whitelist,
                              volatile int *interrupt, CFFInputResult *r) {
    memset(r, 0, sizeof *r);
    *out = NULL;

    /* The type first, by path: opening a device can have side effects. */
    struct stat st;
    if (stat(path, &st) != 0) return system_error(r, errno);
    if (file_type(r, &st) != CFF_INPUT_OPENED) return r->status;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return system_error(r, errno);
    /* Then again on what was opened: the name may have been swapped for a FIFO in between. */
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return system_error(r, e);
    }
    r->attributes = st;
    if (file_type(r, &st) != CFF_INPUT_OPENED || st.st_size == 0) {
        close(fd);
        return r->status != CFF_INPUT_OPENED ? r->status : finish(r, CFF_INPUT_EMPTY);
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        int e = errno;
        close(fd);
        return system_error(r, e);
    }

    InputGuard *g = av_mallocz(sizeof *g);
    unsigned char *buffer = av_malloc(GUARD_BUFFER_SIZE);
    if (!g || !buffer) {
        av_free(g);
        av_free(buffer);
        close(fd);
        r->averror = AVERROR(ENOMEM);
        return finish(r, CFF_INPUT_FFMPEG_ERROR);
    }
    g->magic = GUARD_MAGIC;
    g->fd = fd;
    g->interrupt = interrupt;
    g->pb = avio_alloc_context(buffer, GUARD_BUFFER_SIZE, 0, g, guard_read, NULL, guard_seek);
    if (!g->pb) {
        av_free(buffer);
        guard_free(g);
        r->averror = AVERROR(ENOMEM);
        return finish(r, CFF_INPUT_FFMPEG_ERROR);
    }

    /* The probe avformat_open_input would run (same reader, same file name for extension hints), but here,
       so the detected demuxer can be named and refused before any of its code runs. */
    const AVInputFormat *fmt = NULL;
    int score = av_probe_input_buffer2(g->pb, &fmt, path, NULL, 0, 0);
    if (score < 0 || !fmt) {
        guard_free(g);
        r->averror = score < 0 ? score : AVERROR_INVALIDDATA;
        return finish(r, CFF_INPUT_FFMPEG_ERROR);
    }
    snprintf(r->format_name, sizeof r->format_name, "%s", fmt->name ? fmt->name : "");
    snprintf(r->format_long_name, sizeof r->format_long_name, "%s", fmt->long_name ? fmt->long_name : "");
    if (!fmt->name || av_match_list(fmt->name, format_whitelist, ',') <= 0) {
        guard_free(g);
        return finish(r, CFF_INPUT_FORMAT_REFUSED);
    }

    AVFormatContext *s = avformat_alloc_context();
    if (!s) {
        guard_free(g);
        r->averror = AVERROR(ENOMEM);
        return finish(r, CFF_INPUT_FFMPEG_ERROR);
    }
    s->pb = g->pb;
    s->flags |= AVFMT_FLAG_CUSTOM_IO;
    s->opaque = g;
    s->io_open = guard_refuse_open;
    s->interrupt_callback.callback = guard_interrupt_callback;
    s->interrupt_callback.opaque = g;
    AVDictionary *options = NULL;
    av_dict_set(&options, "format_whitelist", format_whitelist, 0);
    av_dict_set(&options, "protocol_whitelist", "file", 0);
    int ret = avformat_open_input(&s, path, fmt, &options);
    av_dict_free(&options);
    if (ret < 0) {
        /* avformat_open_input freed s; with custom I/O, the AVIOContext and the descriptor are still ours. */
        r->averror = ret;
        CFFInputStatus status = g->refused ? CFF_INPUT_NESTED_OPEN_REFUSED : CFF_INPUT_FFMPEG_ERROR;
        snprintf(r->refused_url, sizeof r->refused_url, "%s", g->refused_url);
        guard_free(g);
        return finish(r, status);
    }
    /* The probe ran outside avformat_open_input, which records 0 for a given format. */
    s->probe_score = score;
    if (g->refused) {
        /* A demuxer that carried on without the file it named: refused all the same. */
        snprintf(r->refused_url, sizeof r->refused_url, "%s", g->refused_url);
        cff_input_close(&s);
        return finish(r, CFF_INPUT_NESTED_OPEN_REFUSED);
    }
    *out = s;
    return finish(r, CFF_INPUT_OPENED);
}

int cff_input_refused_opens(const AVFormatContext *s, char *url, int size) {
    const InputGuard *g = s ? s->opaque : NULL;
    if (!g || g->magic != GUARD_MAGIC) return 0;
    if (url && size > 0) snprintf(url, (size_t)size, "%s", g->refused_url);
    return g->refused;
}

void cff_input_close(AVFormatContext **ps) {
    if (!ps || !*ps) return;
    InputGuard *g = (*ps)->opaque;
    if (g && g->magic != GUARD_MAGIC) g = NULL;
    /* The demuxer first (its read_close may still read through pb), then what it read from. */
    avformat_close_input(ps);
    guard_free(g);
}
