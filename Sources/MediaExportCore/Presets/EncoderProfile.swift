import Foundation

/// What mediaexport knows of one encoder, read alike by preset validation, the planner, the size estimates and the
/// FFmpeg target's encoder setup (one driver per `Family`). Adding an encoder is a new profile (and a driver when it
/// is of a new family), not new `if`s.
public struct EncoderProfile: Sendable, Equatable {
    /// Encoders whose options are set the same way: one driver each in the FFmpeg target.
    public enum Family: Sendable, Equatable {
        /// libx264: AVOptions, `x264-params`, its own statistics file for two passes.
        case x264
        /// libx265: all but the speed and CRF in `x265-params`, HDR10 metadata in its SEI.
        case x265
        /// libsvtav1: `svtav1-params`, HDR10 metadata as AV1 metadata OBUs.
        case svtAV1
        /// FFmpeg's AAC and libopus: rate, sample rate, layout and sample format on the context.
        case audio
    }

    /// How an encoder keeps HDR (10-bit, PQ/HLG, HDR10 metadata in its own parameters).
    public struct HDRSupport: Sendable, Equatable {
        /// How notes name the HDR kept, e.g. `HEVC Main10`.
        public var name: String
        /// The parameter taking the mastering display, e.g. `master-display`.
        public var masteringKey: String
        /// The parameter taking the content light level as `maxCLL,maxFALL`, e.g. `max-cll`.
        public var contentLightKey: String
    }

    /// The encoder parameters that make its bytes the same from run to run and on every CPU.
    public struct Determinism: Sendable, Equatable {
        /// Given on every export.
        public var always: [String] = []
        /// Given under `--deterministic`: its SIMD level pinned where it picks one from CPUID.
        public var pinned: [String] = []
        /// The parameter sizing its thread pool by `--threads` under `--deterministic`; nil: none.
        public var poolsKey: String?
        /// True when its VBV plans a frame from what its other frame threads have encoded so far (timing): one
        /// thread whenever a maximum rate is set.
        public var vbvOnOneThread = false
    }

    /// The libavcodec encoder name, e.g. `libx264`.
    public var encoder: String
    /// The driver that sets it up.
    public var family: Family
    /// The containers (by extension) that hold what it makes: FFmpeg 5.1's muxers' answers (`Container.holds`).
    public var containers: [String]
    /// Its speed presets (`video.encoderPreset`), fastest first for x264/x265, slowest first for SVT-AV1.
    public var speeds: [String] = []
    /// The speed of a preset that names none.
    public var defaultSpeed = ""
    /// Its constant rate factor scale (`video.crf`).
    public var crfRange = 0...0
    /// How many steps its CRF sits above x264's for about the same bits per pixel.
    public var crfAboveX264 = 0
    /// The bits it spends for x264's at the same CRF on x264's scale.
    public var efficiency = 1.0
    /// True when its FFmpeg 5.1 wrapper runs two passes.
    public var twoPass = false
    /// The pixel formats a preset may ask it for (`video.pixelFormat`).
    public var pixelFormats: [String] = []
    /// The smallest picture side it takes.
    public var minimumSide = 2
    /// How it keeps HDR; nil: a preset with it tone-maps HDR (10-bit H.264 HDR plays almost nowhere).
    public var hdr: HDRSupport?
    /// Its sample entry in MP4/MOV when FFmpeg's default is not what Apple players expect.
    public var quickTimeTag: String?
    /// Its parameters for the same bytes every run.
    public var determinism = Determinism()
    /// The sample format it takes, by FFmpeg's name (`fltp`); nil for video.
    public var sampleFormat: String?
    /// True when its library can be neither flushed nor closed before it has taken a frame (SVT-AV1 1.4 then waits
    /// forever): one that got none is closed after a black frame whose packets are dropped.
    public var closesOnlyAfterAFrame = false

    /// The CRF on x264's scale, for the rough bit-rate guesses.
    public func x264EquivalentCRF(_ crf: Int) -> Double { Double(crf - crfAboveX264) }

    /// The bits a pixel a CRF encode spends, guessed without measuring: 0.1 at x264's CRF 23, doubling every 6 steps
    /// down, times `efficiency`.
    public func guessedBitsPerPixel(crf: Int) -> Double { 0.1 * pow(2, (23 - x264EquivalentCRF(crf)) / 6) * efficiency }

    /// The most bits a second a CRF encode of `width`x`height` at `frameRate` is taken to need: about 0.25 bits per
    /// pixel at x264's CRF 18, halving every 6 steps, and half as much again as a margin.
    public func bitRateCeiling(crf: Int, width: Int, height: Int, frameRate: Double) -> Double {
        0.25 * pow(2, (18 - x264EquivalentCRF(crf)) / 6) * Double(width) * Double(height) * frameRate * 1.5
    }
}

extension EncoderProfile {
    private static let x26xSpeeds = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
    private static let x26xFormats = ["yuv420p", "yuv420p10le", "yuv422p", "yuv444p"]

    /// H.264 through libx264. Its `cpu-independent` promises the same bitstream on every CPU and, on one CPU, from
    /// run to run: without it its macroblock-tree propagation (the SIMD kind) reads heap memory it never wrote, so the
    /// same clip gives other bytes as the process's heap differs (measured with the ffmpeg CLI too). Its VBV subtracts
    /// the sizes its other frame threads have reached so far (`update_vbv_plan`): 24 bitstreams in 24 loaded runs.
    public static let libx264 = EncoderProfile(
        encoder: "libx264", family: .x264, containers: ["mp4", "mov", "m4v", "mkv"], speeds: x26xSpeeds, defaultSpeed: "medium",
        crfRange: 0...51, twoPass: true, pixelFormats: x26xFormats,
        determinism: Determinism(always: ["cpu-independent=1"], vbvOnOneThread: true))

    /// HEVC through libx265, tagged `hvc1`, 0.6 of x264's bits. Its frame threads make its rate control depend on
    /// timing (a starved process gave 3 other bitstreams in 24 runs): one frame at a time, its rows in parallel. Its
    /// SIMD kernels decide differently from level to level: x86-64-v2's under `--deterministic`, its pool sized by the
    /// thread count.
    public static let libx265 = EncoderProfile(
        encoder: "libx265", family: .x265, containers: ["mp4", "mov", "m4v", "mkv"], speeds: x26xSpeeds, defaultSpeed: "medium",
        crfRange: 0...51, efficiency: 0.6, twoPass: true, pixelFormats: x26xFormats,
        hdr: HDRSupport(name: "HEVC Main10", masteringKey: "master-display", contentLightKey: "max-cll"), quickTimeTag: "hvc1",
        determinism: Determinism(always: ["frame-threads=1"], pinned: ["asm=sse4.2"], poolsKey: "pools"))

    /// AV1 through SVT-AV1 (`libsvtav1`, 1.4): speeds `0` (slowest) to `13`, CRF 0–63 (about 12 steps above x264's),
    /// 0.5 of x264's bits, 8 or 10-bit 4:2:0, pictures of at least 64x64, one pass (FFmpeg 5.1's wrapper passes no
    /// statistics); its SIMD level pinned under `--deterministic`. Not in MOV (FFmpeg 5.1's MOV mode writes no `av1C`).
    public static let libsvtav1 = EncoderProfile(
        encoder: "libsvtav1", family: .svtAV1, containers: ["mp4", "m4v", "mkv", "webm"], speeds: (0...13).map(String.init),
        defaultSpeed: "10", crfRange: 0...63, crfAboveX264: 12, efficiency: 0.5, pixelFormats: ["yuv420p", "yuv420p10le"],
        minimumSide: 64, hdr: HDRSupport(name: "AV1 10-bit", masteringKey: "mastering-display", contentLightKey: "content-light"),
        determinism: Determinism(pinned: ["asm=sse4_2"]), closesOnlyAfterAFrame: true)

    /// AAC-LC through FFmpeg's native encoder (planar floats).
    public static let aac = EncoderProfile(encoder: "aac", family: .audio, containers: ["mp4", "mov", "m4v", "m4a", "mkv"], sampleFormat: "fltp")

    /// Opus through libopus (interleaved floats); FFmpeg's MOV mode and the M4A brand refuse it.
    public static let libopus = EncoderProfile(encoder: "libopus", family: .audio, containers: ["mp4", "m4v", "mkv", "webm"], sampleFormat: "flt")
}

extension VideoCodec {
    /// The encoder that makes this codec.
    public var profile: EncoderProfile {
        switch self {
        case .h264: return .libx264
        case .hevc: return .libx265
        case .av1: return .libsvtav1
        }
    }
}

extension AudioCodec {
    /// The encoder that makes this codec.
    public var profile: EncoderProfile { self == .aac ? .aac : .libopus }
}
