#define _GNU_SOURCE
#include "OutputIO.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <libavutil/mem.h>

/* The reading side of the faststart pass. */
enum { READ_BUFFER_SIZE = 256 << 10 };

/* How much of the faststart pass's output is written before its write-back to the disk is started. */
enum { WRITEBACK_CHUNK = 8 << 20 };

/* What the write context knows: the folder, the temporary file and its identity. */
typedef struct OutputIO {
    int dirfd;   /* not owned */
    int fd;      /* not owned */
    char *name;  /* owned (av_strdup) */
    dev_t dev;
    ino_t ino;
    /* Where the next write lands (the descriptor's offset, followed through writes and seeks). */
    int64_t pos;
    /* From here on every byte written is final, so its write-back is started as it goes, from `written_from`,
       instead of all of it waiting for the fsync before the rename (OutputTarget.commit): once the faststart pass
       has begun (movenc reopened the file for reading; the pass moves the data up in one sequential sweep, then
       writes the moov before it; bytes of the first pass are not final: the sweep rewrites them), or from the
       start of a mux whose index goes into room reserved at the front (cff_output_io_write_back_early). */
    int shifting;
    int64_t written_from;
} OutputIO;

/* Starts (does not wait for) the write-back of [from, to) to the disk. Best effort: a file system that cannot
   is left to the fsync before the rename, which reports any write error. */
static void start_writeback(OutputIO *io, int64_t from, int64_t to) {
#ifdef SYNC_FILE_RANGE_WRITE
    if (to > from) (void)sync_file_range(io->fd, (off_t)from, (off_t)(to - from), SYNC_FILE_RANGE_WRITE);
#else
    (void)io; (void)from; (void)to;
#endif
}

/* Every byte written from now on is final: start its write-back as it goes (see `shifting`). */
static void begin_final_writes(OutputIO *io) {
    if (!io->shifting) {
        io->shifting = 1;
        io->written_from = io->pos;
    }
}

/* A reopened temporary file, for reading. */
typedef struct ReadIO {
    int fd;  /* owned */
} ReadIO;

static int write_all(void *opaque, uint8_t *buf, int size) {
    OutputIO *io = opaque;
    int done = 0;
    while (done < size) {
        ssize_t n = write(io->fd, buf + done, (size_t)(size - done));
        if (n < 0) {
            if (errno == EINTR) continue;
            return AVERROR(errno);
        }
        if (n == 0) return AVERROR(EIO);
        done += (int)n;
    }
    io->pos += size;
    if (io->shifting && io->pos - io->written_from >= WRITEBACK_CHUNK) {
        start_writeback(io, io->written_from, io->pos);
        io->written_from = io->pos;
    }
    return size;
}

static int64_t seek_fd(int fd, int64_t offset, int whence) {
    whence &= ~AVSEEK_FORCE;
    if (whence == AVSEEK_SIZE) {
        struct stat st;
        if (fstat(fd, &st) != 0) return AVERROR(errno);
        return (int64_t)st.st_size;
    }
    off_t r = lseek(fd, (off_t)offset, whence);
    return r < 0 ? AVERROR(errno) : (int64_t)r;
}

static int64_t seek_write(void *opaque, int64_t offset, int whence) {
    OutputIO *io = opaque;
    int64_t r = seek_fd(io->fd, offset, whence);
    if (r >= 0 && (whence & ~AVSEEK_FORCE) != AVSEEK_SIZE) {
        if (io->shifting) {
            start_writeback(io, io->written_from, io->pos);
            io->written_from = r;
        }
        io->pos = r;
    }
    return r;
}

static int read_some(void *opaque, uint8_t *buf, int size) {
    ReadIO *r = opaque;
    for (;;) {
        ssize_t n = read(r->fd, buf, (size_t)size);
        if (n < 0) {
            if (errno == EINTR) continue;
            return AVERROR(errno);
        }
        return n == 0 ? AVERROR_EOF : (int)n;
    }
}

static int64_t seek_read(void *opaque, int64_t offset, int whence) {
    return seek_fd(((ReadIO *)opaque)->fd, offset, whence);
}

int cff_output_reopen(int dirfd, const char *name, int fd) {
    int r = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (r < 0) return -errno;
    struct stat a, b;
    if (fstat(r, &a) != 0 || fstat(fd, &b) != 0) {
        int e = errno;
        close(r);
        return -e;
    }
    if (a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
        close(r);
        return -ESTALE;
    }
    /* O_NONBLOCK only kept a FIFO planted under the name from blocking the open; it is a regular file. */
    int flags = fcntl(r, F_GETFL);
    if (flags >= 0) fcntl(r, F_SETFL, flags & ~O_NONBLOCK);
    return r;
}

/* FFmpeg asks to open a file: only the temporary file, only for reading (movenc's faststart pass). */
static int io_open(AVFormatContext *s, AVIOContext **pb, const char *url, int flags, AVDictionary **options) {
    (void)options;
    OutputIO *io = s->opaque;
    if (!io || !url || strcmp(url, io->name) != 0 || (flags & AVIO_FLAG_WRITE)) {
        av_log(s, AV_LOG_ERROR, "refusing to open another file than the output's temporary file\n");
        return AVERROR(EPERM);
    }
    int fd = cff_output_reopen(io->dirfd, io->name, io->fd);
    if (fd < 0) return AVERROR(-fd);
    begin_final_writes(io);
    ReadIO *r = av_mallocz(sizeof *r);
    unsigned char *buffer = av_malloc(READ_BUFFER_SIZE);
    AVIOContext *ctx = (r && buffer) ? avio_alloc_context(buffer, READ_BUFFER_SIZE, 0, r, read_some, NULL, seek_read) : NULL;
    if (!ctx) {
        av_free(buffer);
        av_free(r);
        close(fd);
        return AVERROR(ENOMEM);
    }
    r->fd = fd;
    *pb = ctx;
    return 0;
}

/* Closes what io_open opened; the write context is ours to free (cff_output_io_detach), never FFmpeg's. */
static int io_close2(AVFormatContext *s, AVIOContext *pb) {
    (void)s;
    if (!pb || pb->read_packet != read_some) return 0;
    ReadIO *r = pb->opaque;
    /* The context may have replaced its buffer: free the one it holds now (doc/examples/avio_reading.c). */
    av_freep(&pb->buffer);
    avio_context_free(&pb);
    int ret = close(r->fd) == 0 ? 0 : AVERROR(errno);
    av_free(r);
    return ret;
}

int cff_output_io_attach(AVFormatContext *s, int dirfd, int fd, const char *name, int buffer_size) {
    if (!s || s->pb || dirfd < 0 || fd < 0 || !name || buffer_size <= 0) return AVERROR(EINVAL);
    struct stat st;
    if (fstat(fd, &st) != 0) return AVERROR(errno);
    OutputIO *io = av_mallocz(sizeof *io);
    char *copy = av_strdup(name);
    unsigned char *buffer = av_malloc((size_t)buffer_size);
    AVIOContext *pb = (io && copy && buffer) ? avio_alloc_context(buffer, buffer_size, 1, io, NULL, write_all, seek_write) : NULL;
    if (!pb) {
        av_free(buffer);
        av_free(copy);
        av_free(io);
        return AVERROR(ENOMEM);
    }
    io->dirfd = dirfd;
    io->fd = fd;
    io->name = copy;
    io->dev = st.st_dev;
    io->ino = st.st_ino;
    off_t at = lseek(fd, 0, SEEK_CUR);
    io->pos = at < 0 ? 0 : (int64_t)at;
    s->pb = pb;
    s->flags |= AVFMT_FLAG_CUSTOM_IO;
    s->opaque = io;
    s->io_open = io_open;
    s->io_close2 = io_close2;
    return 0;
}

int cff_output_io_write_back_early(AVFormatContext *s) {
    if (!s || !s->pb || s->pb->write_packet != write_all) return -1;
    OutputIO *io = s->pb->opaque;
    begin_final_writes(io);
    return 0;
}

int cff_output_io_detach(AVFormatContext *s, int flush) {
    if (!s || !s->pb || s->pb->write_packet != write_all) return 0;
    AVIOContext *pb = s->pb;
    int ret = 0;
    OutputIO *io = pb->opaque;
    if (flush) {
        avio_flush(pb);
        ret = pb->error;
        if (io->shifting) start_writeback(io, io->written_from, io->pos);
    }
    av_freep(&pb->buffer);
    avio_context_free(&s->pb);
    s->opaque = NULL;  /* io_open refuses from now on */
    av_free(io->name);
    av_free(io);
    return ret < 0 ? ret : 0;
}

int cff_rename_noreplace(int dirfd, const char *from, const char *to) {
#ifdef SYS_renameat2
    if (syscall(SYS_renameat2, dirfd, from, dirfd, to, 1 /* RENAME_NOREPLACE */) == 0) return 0;
    return -errno;
#else
    (void)dirfd; (void)from; (void)to;
    return -ENOSYS;
#endif
}

int cff_rename_exchange(int dirfd, const char *a, const char *b) {
#ifdef SYS_renameat2
    if (syscall(SYS_renameat2, dirfd, a, dirfd, b, 2 /* RENAME_EXCHANGE */) == 0) return 0;
    return -errno;
#else
    (void)dirfd; (void)a; (void)b;
    return -ENOSYS;
#endif
}

int cff_clone_file(int dst, int src) {
#ifdef FICLONE
    if (ioctl(dst, FICLONE, src) == 0) return 0;
    return -errno;
#else
    (void)dst; (void)src;
    return -EOPNOTSUPP;
#endif
}
