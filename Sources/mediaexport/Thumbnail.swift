import ArgumentParser
import Foundation
import MediaExport

extension ThumbnailMode: ExpressibleByArgument {}

struct Thumbnail: ToolCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a poster frame or thumbnail (JPEG or PNG), upright and as the asset version shows it.",
        discussion: """
        Without --at, the poster time is the first frame from 10 % of the duration on that is not nearly uniform \
        (skipping black lead-ins and fades). Without --exact, the keyframe at or before the time is used (fast).

        Examples:
          mediaexport thumbnail clip.mov poster.jpg
          mediaexport thumbnail clip.mov thumb.jpg --size 320
          mediaexport thumbnail clip.mov thumb.png --at 12.5 --exact
          mediaexport thumbnail clip.mov thumb.png --size 320x180 --mode fill
        """
    )

    @Argument(help: "The video.", completion: .file())
    var file: String

    @Argument(help: "The picture: .jpg, .jpeg or .png.", completion: .file(extensions: ["jpg", "jpeg", "png"]))
    var output: String

    @Option(help: "Seconds on the version's timeline (after a sidecar's trim).")
    var at: Double?

    @Option(help: "Target size WxH, as displayed, or a width W alone (the height from the aspect ratio).")
    var size: String?

    @Option(help: "fit (inside the box, never upscaled) or fill (covers the box, centre cropped to exactly WxH).")
    var mode: ThumbnailMode = .fit

    @Flag(help: "Decode up to the exact time instead of using the keyframe before it.")
    var exact = false

    @OptionGroup var version: AssetVersionOption

    @Option(help: "A JSON edit sidecar to apply.", completion: .file(extensions: ["json"]))
    var edits: String?

    @Flag(name: [.customShort("y"), .long], help: "Replace an existing picture.")
    var overwrite = false

    @Flag(help: "Print the result as JSON.")
    var json = false

    func parsedSize() throws -> (Int, Int?)? {
        guard let size else { return nil }
        let parts = size.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
        guard (1...2).contains(parts.count), parts.allSatisfy({ $0.map { $0 >= 2 && $0 <= 16384 } ?? false }) else {
            throw ValidationError("--size must be WxH or a width W, e.g. 320x180 or 320")
        }
        return (parts[0]!, parts.count == 2 ? parts[1] : nil)
    }

    func validate() throws {
        _ = try parsedSize()
        try NumberRange.check("--at", at, 0...1e7)
    }

    func perform() throws {
        ToolProcess.quietFFmpegLog()
        let size = try parsedSize()
        let signals = SignalCancellation()  // a picture is quick: a signal ends it at once, removing the temporary file
        defer { signals.stop() }
        let result = try Thumbnailer.make(ThumbnailRequest(input: file, output: output, time: at, width: size?.0, height: size?.1,
                                                           mode: mode, exact: exact, version: version.assetVersion, editsPath: edits,
                                                           overwrite: overwrite))
        if json {
            try printJSON(result, pretty: false, times: true)
        } else {
            printHuman(String(format: "Wrote %@: %dx%d %@ at %.3f s (%@)", result.output, result.width, result.height, result.format,
                              result.time, result.reason))
        }
    }
}
