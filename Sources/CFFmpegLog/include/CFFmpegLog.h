#ifndef MEDIAEXPORT_CFFMPEGLOG_H
#define MEDIAEXPORT_CFFMPEGLOG_H

/* FFmpeg reports the real cause of many failures only through av_log (e.g. "Picture size 100000x100000 is
   invalid" behind a generic error code). This log callback keeps the last error line per thread so errors
   can name it, and prints FFmpeg's messages only at or below the chosen level. (A C file, not the shim
   header: the callback is variadic and needs static storage.) */

/* Installs the callback; print_level is an AV_LOG_* level (AV_LOG_QUIET prints nothing). */
void cff_install_log(int print_level);

/* Copies this thread's last error line into out (empty if none) and forgets it. */
void cff_take_last_error(char *out, int size);
/// Errors demuxers logged on this thread since the last call (a demuxer's resync in damaged data: Matroska's
/// "invalid as first byte of an EBML number"), and the count set back to 0.
int cff_take_demuxer_errors(void);

/* Installs a handler for each of `signals` that writes the signal's number (one byte) to a non-blocking pipe, and
   returns the pipe's read end (the same on every call), or -1. Reset a signal with signal(2) to stop it. */
int cff_signal_pipe_install(const int *signals, int count);

/// The width in columns of the terminal on `fd` (TIOCGWINSZ; ioctl is variadic, which Swift cannot call), or 0 when
/// `fd` is no terminal or does not say.
int cff_terminal_columns(int fd);

/// The cores this process may run on (sched_getaffinity: `taskset`, a container's cpuset), or 0 when unknown.
int cff_affinity_cores(void);

/* The calling thread (and the threads it creates) gives up the right to real-time scheduling (CAP_SYS_NICE): see
   realtime.c. 0 on success. */
int cff_drop_realtime_priority(void);
/// Fixes glibc's mmap threshold (mallopt M_MMAP_THRESHOLD, which also stops glibc from raising it as blocks are
/// freed): blocks of `bytes` or more get their own mappings. 1 when set, 0 where there is no such setting. (A C file:
/// Swift's Glibc module does not import <malloc.h>.)
int cff_fix_mmap_threshold(int bytes);
/// Gives the free pages of every malloc arena back to the system (malloc_trim(0)): 1 when some were released.
int cff_release_free_memory(void);

/// Receives FFmpeg's log lines (its level, the line without a newline) instead of stderr.
typedef void (*cff_log_sink)(int level, const char *line);
/// Sends FFmpeg's lines at `level` or more severe to `sink` (NULL: back to stderr at the printing level).
void cff_set_log_sink(cff_log_sink sink, int level);

/// Pins the code paths of FFmpeg's SIMD (to x86-64-v2: up to SSE4.2) and of zimg (to its C code) for the rest of the
/// process, so that what they compute is the same on every such CPU (`--deterministic`). 1 when pinned; 0, pinning
/// nothing, on a CPU without SSE4.2.
int cff_pin_cpu_paths(void);
/// The CPU's own FFmpeg flags (`av_get_cpu_flags` as detected), also after `cff_pin_cpu_paths` forced others.
int cff_detected_cpu_flags(void);
/// How many zimg graphs this process built through the interposed zimg_filter_graph_build (a test's proof that
/// the interposition is in force).
int cff_zimg_graphs_built(void);
/// The file name (symlinks resolved, e.g. `libx264.so.164`) of the loaded shared library whose name starts with
/// `prefix` (e.g. `libx264.so.`), into `out`; 1 when one is loaded, else 0 and an empty `out`.
int cff_loaded_library(const char *prefix, char *out, int size);
/// x265's own version string (`x265_version_str`) when libx265 is loaded, into `out`; 1 when found.
int cff_x265_version(char *out, int size);
/// zimg's version (`zimg_get_version_info`, e.g. `3.0.4`) when libzimg is loaded, into `out`; 1 when found.
int cff_zimg_version(char *out, int size);

#endif
