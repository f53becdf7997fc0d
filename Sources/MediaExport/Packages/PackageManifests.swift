import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// The package's manifests, written from the segments as they are (measured durations and peak bit rates, codec
/// strings from the init segments), and the package's own checks over the same facts.
enum PackageManifests {
    /// The rungs as read back from their folders, and what the manifests declare of them.
    struct Written {
        var renditions: [Rendition]
        var declared: [StreamingManifests.Declared]
        /// The separate audio rendition (`--separate-audio`), nil when each rung carries its audio.
        var audio: Rendition?
    }

    /// Reads every rung's segments, writes each rung's media and I-frame playlists, `master.m3u8` and
    /// `manifest.mpd`.
    static func write(_ encoded: [(LadderRung, ExportEvent.Completed)], audio: Bool, into folder: PackageFolder) throws -> Written {
        let renditions = try encoded.map { try read($0.0.name, in: folder) }
        let audio = audio ? try read(Packager.audioName, in: folder) : nil
        for file in StreamingManifests.files(for: renditions, audio: audio) { try folder.write(file.name, file.text) }
        return Written(renditions: renditions, declared: renditions.map { StreamingManifests.declared($0, audio: audio) }, audio: audio)
    }

    private static func read(_ name: String, in folder: PackageFolder) throws -> Rendition {
        do { return try RenditionReader.read(root: folder.workPath, folder: name, id: name) } catch let failure as RenditionReader.Failure {
            throw ExportError.verificationFailed(path: folder.finalPath, checks: "rendition \(name): \(words(failure))")
        }
    }

    /// Each rung's record.
    static func rungs(_ written: Written, encoded: [(LadderRung, ExportEvent.Completed)], folder: PackageFolder) -> [PackagedRung] {
        zip(zip(written.renditions, written.declared), encoded).map { pair, rung in
            let (rendition, declared) = pair
            let initBytes = FileSystem.size(folder.path(rendition.folder + "/" + rendition.initName)) ?? 0
            let bytes = rendition.segments.reduce(initBytes) { $0 + Int64($1.bytes) }
            return PackagedRung(name: rung.0.name, width: rendition.width ?? 0, height: rendition.height ?? 0, frameRate: rendition.frameRate,
                                codecs: rendition.codecs.joined(separator: ","), bandwidth: declared.bandwidth,
                                peakBitRate: Int(declared.peak.rounded()), averageBandwidth: declared.averageBandwidth,
                                segments: rendition.segments.count, bytes: bytes, rate: rung.0.rate,
                                crf: rung.1.settings?.crf, quality: rung.1.quality)
        }
    }

    /// The validator's checks over the rungs and the sprite cues: how many ran, and what they found, in words.
    static func validate(_ written: Written, plan: LadderPlan, sprites: SpriteIndex?) -> PackageValidation {
        var findings = PackageValidator.check(written.renditions, declared: written.declared, audio: written.audio, targetDuration: plan.segmentSeconds)
        if let sprites, let duration = written.renditions.first?.duration {
            findings += PackageValidator.cueCoverage(sprites.cues.map { ($0.start, $0.end) }, duration: duration)
        }
        let segments = (written.renditions + (written.audio.map { [$0] } ?? [])).reduce(0) { $0 + $1.segments.count }
        // Per segment: starts on a sync sample, length, boundary; per rung: count, bandwidth floor and ceiling; the cues.
        let checks = 3 * segments + 3 * written.renditions.count + (sprites == nil ? 0 : 1)
        return PackageValidation(checks: checks, findings: findings.map(words))
    }

    private static func words(_ failure: RenditionReader.Failure) -> String {
        switch failure {
        case .unreadable(let path, let reason): return "\(PathName.lastComponent(path)) unreadable: \(reason)"
        case .notASegment(let path, let fault): return "\(PathName.lastComponent(path)) is not a segment we read (\(fault))"
        case .noSegments: return "no segments"
        }
    }

    /// A finding in words.
    static func words(_ finding: PackageFinding) -> String {
        switch finding {
        case .noSegments(let r): return "\(r): no segments"
        case .segmentStartsWithoutSync(let r, let s, let track): return "\(r): segment \(s) starts without a keyframe (track \(track))"
        case .segmentTooLong(let r, let s, let d, let limit): return String(format: "%@: segment %d lasts %.3f s (at most %.3f)", r, s, d, limit)
        case .segmentCountDiffers(let r, let n, let expected): return "\(r): \(n) segments, the first rung \(expected)"
        case .boundaryMisaligned(let r, let s, let start, let expected):
            return String(format: "%@: segment %d starts at %.4f s, the first rung's at %.4f s", r, s, start, expected)
        case .firstSegmentStartsApart(let r, let start, let expected): return String(format: "%@: starts at %.4f s, not %.4f s", r, start, expected)
        case .bandwidthBelowPeak(let r, let declared, let peak): return String(format: "%@: BANDWIDTH %d under the peak %.0f", r, declared, peak)
        case .bandwidthOverMargin(let r, let declared, let peak): return String(format: "%@: BANDWIDTH %d over 1.1 × the peak %.0f", r, declared, peak)
        case .codecUnknown(let r, let entry): return "\(r): codec of sample entry \(entry) unknown"
        case .cuesLeaveGap(let from, let to): return String(format: "scrub previews leave %.3f–%.3f s uncovered", from, to)
        }
    }
}
