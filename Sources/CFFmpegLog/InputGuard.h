#ifndef MEDIAEXPORT_INPUTGUARD_H
#define MEDIAEXPORT_INPUTGUARD_H

/* Opening an input without letting it open anything else. An upload named `upload.mov` may be an HLS
   playlist, a concat list, an SDP file, ...: FFmpeg detects those by content and their demuxers open the
   files or URLs they name (a local file disclosure). So the input is opened here, never by FFmpeg:

   - the file is opened by its bytes with open(2) (no URL parsing: `concat:a|b`, `subfile,,...:x` or
     `img%03d.png` are file names like any other), non-blocking so a FIFO cannot hang the open, and it must
     be a regular file (checked on the descriptor, so a swap after a check changes nothing);
   - FFmpeg reads it through an AVIOContext on that descriptor;
   - the format is probed first (av_probe_input_buffer2, the same probe avformat_open_input runs), and a
     demuxer that is not on the caller's whitelist is refused before any of its code runs; the detected
     name is reported so the message can say why;
   - avformat_open_input then gets the probed demuxer, format_whitelist (FFmpeg checks it again),
     protocol_whitelist "file", and an io_open callback that refuses every open: the input itself is already
     open, so any call is a nested open (a playlist entry, a QuickTime reference, a VobSub .sub ...).

   (Declared to Swift through the CFFmpeg shim, which includes this file. It is not in include/: every header
   there belongs to this target's module, whose generated module map exports only CFFmpegLog.h.) */

#include <libavformat/avformat.h>
#include <sys/stat.h>

/* What cff_input_open did. */
typedef enum CFFInputStatus {
    CFF_INPUT_OPENED = 0,
    /* stat/open/fstat failed: sys_errno. */
    CFF_INPUT_SYSTEM_ERROR = 1,
    CFF_INPUT_DIRECTORY = 2,
    /* A FIFO, socket or device. */
    CFF_INPUT_NOT_REGULAR = 3,
    CFF_INPUT_EMPTY = 4,
    /* The detected demuxer (format_name, format_long_name) is not on the whitelist. */
    CFF_INPUT_FORMAT_REFUSED = 5,
    /* The demuxer tried to open another file or URL (refused_url, the first one). */
    CFF_INPUT_NESTED_OPEN_REFUSED = 6,
    /* Probing or avformat_open_input failed: averror (AVERROR_EXIT when interrupted). */
    CFF_INPUT_FFMPEG_ERROR = 7,
} CFFInputStatus;

typedef struct CFFInputResult {
    CFFInputStatus status;
    int sys_errno;
    int averror;
    /* fstat of the opened descriptor (set once the file was opened). */
    struct stat attributes;
    /* The probed demuxer, when probing got that far. */
    char format_name[64];
    char format_long_name[128];
    /* The first nested open refused (as the demuxer asked for it: untrusted text). */
    char refused_url[256];
} CFFInputResult;

/* Opens the regular file `path` (raw bytes, NUL-terminated) as described above. `format_whitelist` is a
   ','-separated list of demuxer names, matched like FFmpeg's own (av_match_list: each component of a name such
   as "mov,mp4,m4a,3gp,3g2,mj2" against each entry). `interrupt`, if not NULL, is polled (atomically) by reads
   and by FFmpeg's interrupt callback; non-zero aborts with AVERROR_EXIT. On CFF_INPUT_OPENED, *out is the
   context: close it with cff_input_close, exactly once. On any other status *out is NULL and nothing is left
   open. Returns result->status. */
CFFInputStatus cff_input_open(AVFormatContext **out, const char *path, const char *format_whitelist,
                              volatile int *interrupt, CFFInputResult *result);

/* Nested opens refused so far on a context from cff_input_open (e.g. during avformat_find_stream_info); the
   first one's URL is copied into url (size bytes, may be 0). */
int cff_input_refused_opens(const AVFormatContext *s, char *url, int size);

/* Closes a context from cff_input_open: the demuxer, then its AVIOContext and the descriptor. Sets *s to NULL;
   does nothing when *s is NULL. */
void cff_input_close(AVFormatContext **s);

#endif
