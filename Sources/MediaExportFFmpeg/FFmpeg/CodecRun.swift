internal import CFFmpegLog
import MediaExportCore

/// How an export's codecs run — not what the plan makes of the streams: each decoder's and encoder's thread count,
/// and whether what they compute must not depend on the CPU or the number of cores (`--deterministic`).
package struct CodecRun: Sendable, Equatable {
    /// Threads each decoder, encoder and filter graph may use; nil: FFmpeg's automatic count (about one a core).
    package var threads: Int?
    /// The same bytes on any x86-64-v2 CPU and core count: FFmpeg's and zimg's code paths pinned (`pinCPUPaths`),
    /// x264's `cpu-independent`, x265's kernels and thread pools fixed, and slice-threaded decoders (a frame-threaded
    /// decoder conceals damage differently from run to run).
    package var deterministic = false

    /// The codecs of `request`: its `codecThreads`, deterministic as it asks.
    package init(_ request: ExportRequest) {
        self.init(threads: request.codecThreads, deterministic: request.deterministic)
    }

    package init(threads: Int? = nil, deterministic: Bool = false) {
        self.threads = threads
        self.deterministic = deterministic
    }

    /// The thread count as FFmpeg's contexts take it (0: automatic).
    var count: Int32 { Int32(clamping: threads ?? 0) }

    /// Pins the code paths the libraries choose by CPU, for the rest of the process: FFmpeg's SIMD to x86-64-v2 (up to
    /// SSE4.2, the level x265 is held to as well), zimg to its SSE2 kernels. Idempotent; exports already running keep the
    /// contexts they opened. False, pinning nothing, on a CPU without SSE4.2 (made before about 2009-2011), where
    /// the same bytes cannot be promised.
    package static func pinCPUPaths() -> Bool { cff_pin_cpu_paths() != 0 }

    /// How many zimg graphs the process built through mediaexport's choice of zimg's code path (see cpu_paths.c).
    package static var zimgGraphsBuilt: Int { Int(cff_zimg_graphs_built()) }
}
