import ArgumentParser
import Foundation
import MediaExport

extension LadderKind: ExpressibleByArgument {}

struct Package: ToolCommand, JSONOutputCommand {
    static let cancelledMessage: String? = "cancelled; no package written"
    static let failedKind = "packageFailed"
    static let writesOwnFailure = false

    static let configuration = CommandConfiguration(
        abstract: "Make a streaming package: an HLS + DASH ladder of CMAF segments, a poster and package.json.",
        discussion: """
        The rungs (1080p, 720p, 480p, 360p, 240p, trimmed to the source; never above its size or 60 fps) are \
        encoded by the export pipeline with keyframes at every segment boundary, cut into fragmented-MP4 segments \
        served by both master.m3u8 and manifest.mpd, whose bandwidths are measured from the segments. The folder \
        is written beside OUTDIR and renamed when complete and checked; an existing package is kept unless \
        --overwrite. See docs/package.md.

        Examples:
          mediaexport package clip.mov out/
          mediaexport package --ladder apple clip.mov apple/
          mediaexport package --quality ssim:0.97 --segment 6 clip.mov out/
          mediaexport package --preset hevc-highest clip.mov hevc/
          mediaexport package --separate-audio clip.mov cmaf/
          mediaexport package --loudness -16 clip.mov out/
        """
    )

    @Argument(help: "The source video.", completion: .file())
    var input: String

    @Argument(help: "The package folder (new or empty, or a package to replace with --overwrite).", completion: .directory)
    var output: String

    @Option(help: "The base preset: its codec (H.264 or HEVC), speed, pixel format and audio.")
    var preset: String = "highest"

    @Option(help: "per-title (rungs trimmed to the source, capped CRF: bits follow the content) or apple (Apple's fixed table).")
    var ladder: LadderKind = .perTitle

    @Option(help: ArgumentHelp("Each rung's CRF searched to reach a measured quality (ssim:0.97, psnr:42) under its ceiling.", valueName: "METRIC:TARGET"))
    var quality: String?

    @Option(help: ArgumentHelp("Target segment length in seconds (2–10); keyframes at every boundary.", valueName: "S"))
    var segment: Double = 4

    @Flag(help: "Audio in a rendition of its own (audio/), the rungs video only: CMAF's one track per segment, as FFmpeg 5.1's DASH demuxer needs.")
    var separateAudio = false

    @Option(parsing: .unconditional, help: ArgumentHelp("EBU R128: the audio normalised to this many LUFS (-70 to -5, e.g. -16), true peak at most -1 dBTP; measured and recorded in any case.", valueName: "measure|LUFS"))
    var loudness: String?

    @OptionGroup var version: AssetVersionOption

    @Option(help: "A JSON edit sidecar to apply.", completion: .file(extensions: ["json"]))
    var edits: String?

    @Flag(name: [.customShort("y"), .long], help: "Replace a package this tool wrote at OUTDIR.")
    var overwrite = false

    @Flag(help: "The same bytes on any x86-64 CPU and core count.")
    var deterministic = false

    @Option(help: "Threads per decoder and encoder.")
    var threads: Int?

    @Flag(name: [.customShort("q"), .long], help: "Print nothing but errors.")
    var quiet = false

    @Flag(help: "Print the package's record (package.json) as one JSON line on stdout.")
    var json = false

    func validate() throws {
        try NumberRange.check("--segment", segment, PackageRequest.segmentRange)
        if let text = quality {
            do { _ = try QualityTarget(parsing: text) } catch { throw ValidationError("--quality: \(error.reason)") }
        }
        if let text = loudness {
            do { _ = try LoudnessTarget(parsing: text) } catch { throw ValidationError("--loudness: \(error.reason)") }
        }
        if let threads, !(1...64).contains(threads) { throw ValidationError("--threads must be between 1 and 64") }
    }

    func perform() throws {
        ToolProcess.quietFFmpegLog()
        var request = PackageRequest(input: input, output: output, preset: try PresetCatalog.builtIn().resolve(preset))
        request.ladder = ladder
        request.quality = quality.flatMap { try? QualityTarget(parsing: $0) }
        request.segmentSeconds = segment
        request.separateAudio = separateAudio
        request.loudness = loudness.flatMap { try? LoudnessTarget(parsing: $0) }
        request.version = version.assetVersion
        request.editsPath = edits
        request.overwrite = overwrite
        request.deterministic = deterministic
        request.threads = threads
        request.searchCache = ExportRequest.defaultSearchCache
        request.toolVersion = MediaExportVersion.string
        let packager = Packager(request: request)
        let signals = SignalCancellation(cancel: { packager.cancel() })
        defer { signals.stop() }
        let quiet = quiet || json
        let record = try packager.run { event in if !quiet, let line = PackageRenderer.progress(event) { Self.say(line) } }
        if json {
            printLine(try JSONLine(kind: "packaged", payload: record).text)
        } else if !quiet {
            PackageRenderer.summary(record, folder: output).forEach(Self.say)
        }
    }

    /// A line for people on stderr (stdout is for `--json`), escaped.
    private static func say(_ line: String) { writeAll(2, TerminalText.escaped(line) + "\n") }
}
