internal import CFFmpegLog

/// Memory that FFmpeg and the planner freed but glibc still holds. A batch opens thousands of files one after
/// another; each probe (and a dry run's sample encode) frees its buffers, but the small records that outlive it are
/// allocated among them, so the freed pages stay resident in glibc's arenas and peak RSS grew with the number of
/// files (365 MB for a 4,000-file dry run beside an export database, of 10 MB in use). Released after each such
/// piece of work, the memory a batch holds is what is in use.
package enum FreedMemory {
    /// Returns the free pages of every malloc arena to the system (glibc's `malloc_trim(0)`).
    package static func release() {
        _ = cff_release_free_memory()
    }
}
