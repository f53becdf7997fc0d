import MediaExportCore

/// What decoding a piece of work started, for the task that asks (a test's seam; nothing is counted unless a
/// task installs a watch with `DecodeWatch.$current.withValue`): each read of a file's stream information
/// (`avformat_find_stream_info`, which decodes a first frame of every stream) and each decoder opened.
///
/// A passthrough reads the input's stream information once, as the ffmpeg CLI does, and decodes nothing else.
/// Work is counted on the task that runs it: `ExportSession.run()` on the calling task, not `export()`'s thread.
package final class DecodeWatch: Sendable {
    /// The watch of the current task, if any.
    @TaskLocal package static var current: DecodeWatch?

    private struct Tally {
        var streamInfoReads: [String] = []
        var decodersOpened = 0
    }
    private let tally = LockedBox(Tally())

    package init() {}

    /// The files whose stream information was read, in order (one entry per read).
    package var streamInfoReads: [String] { tally.withLock { $0.streamInfoReads } }
    /// Decoders opened by the pipeline, probes and thumbnails (not those inside `avformat_find_stream_info`).
    package var decodersOpened: Int { tally.withLock { $0.decodersOpened } }

    static func noteStreamInfo(_ path: String) {
        current?.tally.withLock { $0.streamInfoReads.append(path) }
    }

    static func noteDecoder() {
        current?.tally.withLock { $0.decodersOpened += 1 }
    }
}
