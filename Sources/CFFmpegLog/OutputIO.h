#ifndef MEDIAEXPORT_OUTPUTIO_H
#define MEDIAEXPORT_OUTPUTIO_H

/* Output written through descriptors, never by path: the output folder is opened once and the temporary file
   is created in it with openat, so swapping a folder on the way for a symlink cannot redirect the bytes.
   FFmpeg gets an AVIOContext on the temporary file's descriptor, and an io_open callback that reopens only
   that file (by its name relative to the folder's descriptor, and only if it is still the same file): MP4/MOV
   faststart reads the file back through s->io_open in its second pass. */

#include <libavformat/avformat.h>

/* Gives the output context `s` (allocated, pb not yet set) an AVIOContext that writes to `fd`, the temporary
   file `name` in the folder `dirfd`, with a buffer of `buffer_size` bytes; installs io_open/io_close2 so that
   only `name` can be reopened, for reading. Neither descriptor is owned (the caller closes them after
   cff_output_io_detach). Returns 0 or a negative AVERROR. After success, call cff_output_io_detach exactly
   once, before avformat_free_context. */
int cff_output_io_attach(AVFormatContext *s, int dirfd, int fd, const char *name, int buffer_size);

/* Frees the AVIOContext set by cff_output_io_attach (s->pb becomes NULL). With `flush`, buffered bytes are
   written first and the first write error is returned (a negative AVERROR, e.g. ENOSPC); without it nothing
   more is written (an export that failed or was cancelled). Does nothing when s->pb is not ours. */
int cff_output_io_detach(AVFormatContext *s, int flush);

/* From now on every byte written is final (a mux that writes its index into room reserved at the front: nothing
   is moved afterwards), so its write-back to the disk is started as it goes. Returns 0, or -1 without our IO. */
int cff_output_io_write_back_early(AVFormatContext *s);

/* Opens the temporary file `name` in `dirfd` again, read-only, without following a symlink, and only if it is
   the very file open as `fd` (same device and inode). Returns the new descriptor, or -errno (-ESTALE when
   the name now points at another file). */
int cff_output_reopen(int dirfd, const char *name, int fd);

/* renameat2(RENAME_NOREPLACE): moves `from` to `to` in `dirfd` only if `to` does not exist. Returns 0, or
   -errno (-EEXIST when `to` exists; -EINVAL or -ENOSYS when the file system cannot do it). */
int cff_rename_noreplace(int dirfd, const char *from, const char *to);

/* renameat2(RENAME_EXCHANGE): swaps the files named `a` and `b` in `dirfd` atomically (both must exist). Returns
   0, or -errno (-ENOENT when one is missing; -EINVAL or -ENOSYS when the file system cannot do it). */
int cff_rename_exchange(int dirfd, const char *a, const char *b);

/* ioctl(FICLONE): makes the empty file `dst` share `src`'s data (a reflink: Btrfs, XFS, bcachefs …). Returns 0, or
   -errno (-EOPNOTSUPP, -EXDEV, -EINVAL when the file system cannot). */
int cff_clone_file(int dst, int src);

#endif
