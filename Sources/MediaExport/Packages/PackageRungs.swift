import Foundation
import MediaExportCore
import MediaExportFFmpeg

extension Packager {
    /// The source as the ladder needs it: the main video's displayed size and rate, whether there is audio.
    static func sourceFacts(_ input: String) throws -> PackageSource {
        let info = try MediaFileProbe.probe(path: input)
        let video = info.streams.first { $0.type == "video" && !$0.isAttachedPicture }
        guard let video else { throw ExportError.noUsableStreams(path: input, reason: "no video stream to package") }
        let audio = info.streams.contains { $0.type == "audio" }
        let sha = try SHA256Hasher.file(input)
        return PackageSource(name: PathName.lastComponent(input), bytes: info.size, sha256: sha, duration: info.duration,
                             width: video.displayWidth ?? video.width, height: video.displayHeight ?? video.height,
                             frameRate: video.frameRate, audio: audio)
    }

    /// The ladder for `source` under the request's rule.
    func ladder(for source: PackageSource) throws -> LadderPlan {
        guard let width = source.width, let height = source.height, width >= 2, height >= 2 else {
            throw ExportError.noUsableStreams(path: request.input, reason: "the video's picture size is unknown")
        }
        let codec = request.preset.video?.codec ?? .h264
        var plan = LadderPlanner.plan(width: width, height: height, frameRate: source.frameRate, hasAudio: source.audio && request.preset.audio != nil,
                                      kind: request.ladder, codec: codec, quality: request.quality, segmentSeconds: request.segmentSeconds)
        plan.separateAudio = plan.audio && request.separateAudio
        return plan
    }

    /// Encodes one rung by the export pipeline into `NAME.mp4` in the package folder (verified against its plan;
    /// any fallback is a failure: a package is never made of a copy), then cuts it into segments in `NAME/`.
    func encode(_ rung: LadderRung, plan: LadderPlan, into folder: PackageFolder,
                progress: @escaping @Sendable (PackageProgress) -> Void) throws -> ExportEvent.Completed {
        var export = exportRequest(rung, plan: plan, output: folder.path(rung.name + ".mp4"))
        if plan.separateAudio { export.preset.audio = nil }
        return try encode(export, name: rung.name, plan: plan, into: folder, progress: progress)
    }

    /// The audio's own rendition (`audio/`): the first audio stream alone, encoded and cut as a rung is.
    func encodeAudio(plan: LadderPlan, into folder: PackageFolder, progress: @escaping @Sendable (PackageProgress) -> Void) throws -> ExportEvent.Completed {
        var export = exportRequest(plan.rungs[plan.rungs.count - 1], plan: plan, output: folder.path(Self.audioName + ".mp4"))
        export.preset.video = nil
        return try encode(export, name: Self.audioName, plan: plan, into: folder, progress: progress)
    }

    /// The separate audio rendition's name and folder.
    static let audioName = "audio"

    private func encode(_ export: ExportRequest, name: String, plan: LadderPlan, into folder: PackageFolder,
                        progress: @escaping @Sendable (PackageProgress) -> Void) throws -> ExportEvent.Completed {
        let session = ExportSession(request: export)
        session.onEvent = { event in
            if case .progress(let p) = event { progress(.rungProgress(name: name, fraction: p.fraction)) }
        }
        current.withLock { $0 = session }
        defer { current.withLock { $0 = nil } }
        if cancelled.withLock({ $0 }) { throw ExportError.cancelled }
        let completed = try session.run()
        guard completed.route == .transcode, completed.fallbacks.isEmpty else {
            throw ExportError.verificationFailed(path: request.input, checks: "rung \(name) was not transcoded (\(completed.route.rawValue))")
        }
        try folder.makeFolder(name)
        try SegmentedCopy.write(input: folder.path(name + ".mp4"), folder: folder.path(name), seconds: plan.segmentSeconds, cancel: token)
        try? FileManager.default.removeItem(atPath: folder.path(name + "/" + SegmentedCopy.muxerPlaylist))
        return completed
    }

    /// The export of one rung: the base preset with the rung's size, rate, frame-rate ceiling and keyframes.
    private func exportRequest(_ rung: LadderRung, plan: LadderPlan, output: String) -> ExportRequest {
        var preset = request.preset
        preset.name = request.preset.name + "@" + rung.name
        preset.maxFileSize = nil
        if let base = preset.video { preset.video = LadderPlanner.settings(rung, plan: plan, base: base) }
        if !plan.audio { preset.audio = nil } else if preset.audio?.codec != .aac { preset.audio?.codec = .aac }
        preset.audio?.loudness = request.loudness?.integrated
        var export = ExportRequest(input: request.input, output: output, preset: preset, version: request.version, editsPath: request.editsPath,
                                   fallback: FallbackPolicy.none, errors: ErrorPolicy(damaged: .fail))
        export.deterministic = request.deterministic
        export.threads = request.threads
        export.searchCache = request.searchCache
        export.tracks = TrackSelection(firstAudioOnly: true, keepSubtitles: false)
        // Every package records its loudness: measured (source and output) by the rung that carries the audio first.
        export.measureLoudness = plan.audio && (plan.separateAudio || rung == plan.rungs[0])
        return export
    }

    /// `package.json`'s record, with every other file's size and SHA-256.
    static func record(source: PackageSource, plan: LadderPlan, rungs: [PackagedRung], encoded: [(LadderRung, ExportEvent.Completed)],
                       poster: PackagePoster?, sprites: TrickplayResult?, loudness: LoudnessReport?, validation: PackageValidation, folder: PackageFolder,
                       tool: String?) throws -> PackageRecord {
        var files: [PackagedFile] = []
        for name in folder.files() where name != "package.json" {
            let path = folder.path(name)
            files.append(PackagedFile(name: name, bytes: FileSystem.size(path) ?? 0, sha256: try SHA256Hasher.file(path)))
        }
        let notes = encoded.flatMap { rung, completed in completed.notes.map { "\(rung.name): \($0)" } }
        var generator = ["ffmpeg": FFmpegVersions.release, "libraries": ExternalLibraries.lines.joined(separator: ", ")]
        if let tool = tool { generator["mediaexport"] = tool }
        return PackageRecord(source: source, version: encoded.first?.1.version, ladder: plan, rungs: rungs, poster: poster, sprites: sprites,
                             loudness: loudness, manifests: ["hls": "master.m3u8", "dash": "manifest.mpd"], validation: validation, files: files,
                             notes: notes, generator: generator)
    }

    /// The record as `package.json`: sorted keys, two-space indents, a final newline.
    static func json(_ record: PackageRecord) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(record), as: UTF8.self) + "\n"
    }
}
