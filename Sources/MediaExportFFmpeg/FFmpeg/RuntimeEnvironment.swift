internal import CFFmpeg
internal import CFFmpegLog
import Foundation

/// The external libraries FFmpeg encodes and converts with, as this process loaded them.
public enum ExternalLibraries {
    /// One line per library that is loaded: its real file name, and the version it reports of itself where it does
    /// (`libx264.so.164`, `libx265.so.199 (3.5+1-f0c1022b6)`, `libzimg.so.2.0.0 (3.0.4)`).
    public static var lines: [String] {
        let libraries: [(prefix: String, version: Fill?)] = [
            ("libx264.so.", nil), ("libx265.so.", { cff_x265_version($0, $1) }), ("libzimg.so.", { cff_zimg_version($0, $1) }),
        ]
        return libraries.compactMap { prefix, version in
            guard let file = text({ cff_loaded_library(prefix, $0, $1) }) else { return nil }
            return version.flatMap { text($0) }.map { "\(file) (\($0))" } ?? file
        }
    }

    /// A C function that fills a buffer of a size, returning 1 when it found something.
    private typealias Fill = (UnsafeMutablePointer<CChar>, Int32) -> Int32

    /// What `fill` gave, or nil when it found nothing.
    private static func text(_ fill: Fill) -> String? {
        var buffer = [CChar](repeating: 0, count: 512)
        guard fill(&buffer, Int32(buffer.count)) != 0 else { return nil }
        return cText(buffer)
    }
}

/// The processor's vector features, as FFmpeg sees them (`av_get_cpu_flags`): the code paths FFmpeg, x264 and zimg
/// choose among.
public enum CPUFeatures {
    /// The features present, weakest first (`sse2`, `sse3`, `ssse3`, `sse4.1`, `sse4.2`, `avx`, `fma3`, `avx2`,
    /// `avx512`, `avx512icl`); empty on other architectures. The CPU's own, also once `--deterministic` pinned the
    /// paths FFmpeg takes.
    public static var vector: [String] {
        #if arch(x86_64)
        let flags = cff_detected_cpu_flags()
        let known: [(String, Int32)] = [
            ("sse2", AV_CPU_FLAG_SSE2), ("sse3", AV_CPU_FLAG_SSE3), ("ssse3", AV_CPU_FLAG_SSSE3), ("sse4.1", AV_CPU_FLAG_SSE4),
            ("sse4.2", AV_CPU_FLAG_SSE42), ("avx", AV_CPU_FLAG_AVX), ("fma3", AV_CPU_FLAG_FMA3), ("avx2", AV_CPU_FLAG_AVX2),
            ("avx512", AV_CPU_FLAG_AVX512), ("avx512icl", AV_CPU_FLAG_AVX512ICL),
        ]
        return known.filter { flags & $0.1 != 0 }.map(\.0)
        #else
        return []
        #endif
    }
}
