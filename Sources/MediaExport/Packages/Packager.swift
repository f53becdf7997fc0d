import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// What a package run reports as it goes (values; the CLI words them).
public enum PackageProgress: Sendable {
    /// The ladder is planned.
    case planned(LadderPlan)
    /// A rung's encode began (index from 0, of `count`).
    case rungStarted(name: String, index: Int, count: Int)
    /// A rung's encode moved on (0…1 of that rung).
    case rungProgress(name: String, fraction: Double)
    /// A rung was encoded, verified and cut into segments.
    case rungDone(name: String, completed: ExportEvent.Completed)
    /// A step after the rungs began (`poster`, `manifests`, `validation`, …).
    case step(String)
}

/// Makes a streaming package (`mediaexport package IN OUTDIR`): plans a ladder for the source, encodes each rung by
/// the export pipeline (the version and edits as for any export, keyframes forced at the segment boundaries, each
/// rung verified against its plan, never a fallback), cuts each into CMAF segments, adds the poster, writes the
/// HLS and DASH manifests from the measured segments, validates the whole, writes `package.json` and renames the
/// folder into place. Cancel from any thread with `cancel()`.
public final class Packager: Sendable {
    /// The request.
    public let request: PackageRequest
    let cancelled = LockedBox(false)
    /// The rung's export being run, for `cancel()`.
    let current = LockedBox<ExportSession?>(nil)
    /// Stops the segmenter.
    let token = CancelToken()

    /// A packager for `request`.
    public init(request: PackageRequest) { self.request = request }

    /// Stops the package: the rung being encoded is cancelled, nothing is published (`ExportError.cancelled`).
    public func cancel() {
        cancelled.withLock { $0 = true }
        token.cancel()
        current.withLock { $0 }?.cancel()
    }

    /// Makes the package; returns its record (also written as `package.json`). Throws `ExportError`.
    public func run(progress: @escaping @Sendable (PackageProgress) -> Void = { _ in }) throws -> PackageRecord {
        try Self.check(request)
        let folder = try PackageFolder(output: request.output, overwrite: request.overwrite)
        let source = try Self.sourceFacts(request.input)
        let plan = try ladder(for: source)
        progress(.planned(plan))
        var encoded: [(LadderRung, ExportEvent.Completed)] = []
        for (index, rung) in plan.rungs.enumerated() {
            try stopIfCancelled()
            progress(.rungStarted(name: rung.name, index: index, count: plan.rungs.count))
            let completed = try encode(rung, plan: plan, into: folder, progress: progress)
            encoded.append((rung, completed))
            progress(.rungDone(name: rung.name, completed: completed))
        }
        let audio = plan.separateAudio ? try encodeAudio(plan: plan, into: folder, progress: progress) : nil
        try stopIfCancelled()
        progress(.step("poster"))
        let poster = try PackagePictures.poster(request, top: encoded[0].1, into: folder)
        progress(.step("sprites"))
        let sprites = try PackagePictures.sprites(from: encoded, into: folder)
        progress(.step("manifests"))
        let written = try PackageManifests.write(encoded, audio: audio != nil, into: folder)
        let rungs = PackageManifests.rungs(written, encoded: encoded, folder: folder)
        for name in encoded.map(\.0.name) + (audio == nil ? [] : [Self.audioName]) { try? FileManager.default.removeItem(atPath: folder.path(name + ".mp4")) }
        progress(.step("validation"))
        let index = try? JSONDecoder().decode(SpriteIndex.self, from: Data(contentsOf: URL(fileURLWithPath: folder.path(TrickplayResult.indexName))))
        let validation = PackageManifests.validate(written, plan: plan, sprites: index)
        guard validation.findings.isEmpty else {
            throw ExportError.verificationFailed(path: request.output, checks: validation.findings.joined(separator: "; "))
        }
        try stopIfCancelled()
        let record = try Self.record(source: source, plan: plan, rungs: rungs, encoded: encoded, poster: poster, sprites: sprites,
                                    loudness: (audio ?? encoded.first?.1)?.loudness,
                                    validation: validation, folder: folder, tool: request.toolVersion)
        try folder.write("package.json", try Self.json(record))
        try folder.commit()
        return record
    }

    private func stopIfCancelled() throws { if cancelled.withLock({ $0 }) { throw ExportError.cancelled } }

    private static func check(_ request: PackageRequest) throws {
        guard PackageRequest.segmentRange.contains(request.segmentSeconds) else {
            throw ExportError.usage(reason: "--segment must be between 2 and 10 seconds")
        }
        guard let video = request.preset.video, !request.preset.passthrough else {
            throw ExportError.usage(reason: "preset '\(request.preset.name)' has no video encoding: a package needs one (H.264 or HEVC)")
        }
        guard video.codec != .av1 else {
            throw ExportError.usage(reason: "preset '\(request.preset.name)' encodes AV1: FFmpeg 5.1's libsvtav1 cannot place keyframes at segment boundaries; use H.264 or HEVC")
        }
    }
}
