import Foundation

/// How a streaming package's renditions and their bit rates are chosen.
public enum LadderKind: String, Codable, Sendable, CaseIterable {
    /// Per title: rungs trimmed to the source, each encoded by a constant rate factor under a ceiling (or to a quality
    /// target), so an easy picture spends few bits and a hard one no more than its rung's ceiling.
    case perTitle = "per-title"
    /// Apple's HLS authoring table (16:9, H.264, 30 fps): fixed average bit rates, for comparison.
    case apple
}

/// One rendition of a ladder: the picture's short side and how its bits are chosen.
public struct LadderRung: Codable, Sendable, Equatable {
    /// Its name in the package (`1080p`, `720p`, …: the short side), also its folder's.
    public var name: String
    /// The short side of the displayed picture the rung fits in (its long side from the source's aspect ratio).
    public var shortSide: Int
    /// Why the rung has its bits.
    public var rate: RungRate

    /// Creates a rung.
    public init(shortSide: Int, rate: RungRate) {
        self.name = "\(shortSide)p"; self.shortSide = shortSide; self.rate = rate
    }
}

/// How a rung's bits are chosen: the reason recorded for it in `package.json`.
public enum RungRate: Codable, Sendable, Equatable {
    /// A constant rate factor under a ceiling (bits/s; VBV buffer twice it): the content decides below the ceiling.
    case cappedCRF(crf: Int, maxBitrate: Int)
    /// The CRF searched for a measured quality (`QualityTarget`), under the same ceiling.
    case quality(QualityTarget, maxBitrate: Int)
    /// A fixed average bit rate (Apple's table), peaks at most 1.5 × it.
    case average(bitrate: Int)
}

/// Why a rung the ladder knows is not in a package.
public enum RungOmission: Codable, Sendable, Equatable {
    /// The source's picture is smaller: a rung is never larger than the source.
    case aboveSource(sourceShortSide: Int)
    /// Too close to the rung above to be worth a rendition (within 15 % of its short side).
    case closeToRungAbove(String)
}

/// A ladder planned for one source: its rungs (largest first), those left out and why, and what every rung shares.
public struct LadderPlan: Codable, Sendable, Equatable {
    /// The renditions, largest first.
    public var rungs: [LadderRung]
    /// The table's rungs left out, by name.
    public var omitted: [String: RungOmission]
    /// The most frames per second of every rung (the source's rate up to 60; nil: the source's).
    public var maxFrameRate: Double?
    /// Seconds between keyframes and segment boundaries.
    public var segmentSeconds: Double
    /// Whether the package has the source's audio.
    public var audio: Bool
    /// The audio's own rendition (`audio/`), the rungs video only; false: in every rung's segments.
    public var separateAudio = false
}

/// Plans a ladder for a source (pure: the tests need no media).
public enum LadderPlanner {
    /// The per-title ladder's rungs: short side and its ceiling in bits/s for H.264 (HEVC spends 0.6 × as much).
    public static let perTitleTable: [(shortSide: Int, maxBitrate: Int)] = [
        (1080, 6_000_000), (720, 3_500_000), (480, 1_600_000), (360, 900_000), (240, 450_000),
    ]
    /// Apple's HLS authoring table, one row per size (H.264, 30 fps): short side and average bits/s.
    public static let appleTable: [(shortSide: Int, bitrate: Int)] = [
        (1080, 6_000_000), (720, 3_000_000), (540, 2_000_000), (432, 1_100_000), (360, 365_000), (234, 145_000),
    ]
    /// The per-title ladder's CRF for H.264 (x264's scale; another codec's from its profile's offset).
    public static let perTitleCRF = 23
    /// The most frames per second a rung has.
    public static let frameRateCeiling = 60.0

    /// The ladder for a source shown at `width`x`height` (displayed, rotation applied) at `frameRate` (nil: unknown).
    public static func plan(width: Int, height: Int, frameRate: Double?, hasAudio: Bool, kind: LadderKind, codec: VideoCodec = .h264,
                            quality: QualityTarget? = nil, segmentSeconds: Double = 4) -> LadderPlan {
        let sourceShort = max(2, min(width, height))
        var omitted: [String: RungOmission] = [:]
        let table: [(Int, RungRate)] = rows(kind, codec: codec, quality: quality)
        var rungs: [LadderRung] = []
        for (short, rate) in table {
            let rung = LadderRung(shortSide: short, rate: rate)
            if short > sourceShort { omitted[rung.name] = .aboveSource(sourceShortSide: sourceShort); continue }
            if let above = rungs.last, Double(short) > 0.85 * Double(above.shortSide) {
                omitted[rung.name] = .closeToRungAbove(above.name)
                continue
            }
            rungs.append(rung)
        }
        // A source between two rows gets a top rung at its own size (at the rate of the row above it), so that a
        // 1000-line source is not served at 720 lines at best; one below every row gets a single rung at its size.
        let above = table.last(where: { $0.0 > sourceShort })
        let own = LadderRung(shortSide: sourceShort & ~1, rate: above?.1 ?? table[table.count - 1].1)
        if rungs.isEmpty {
            rungs = [own]
        } else if above != nil, Double(own.shortSide) > Double(rungs[0].shortSide) / 0.85 {
            rungs.insert(own, at: 0)
        }
        let cap = frameRate.map { $0 > frameRateCeiling ? frameRateCeiling : nil } ?? nil
        return LadderPlan(rungs: rungs, omitted: omitted, maxFrameRate: cap, segmentSeconds: segmentSeconds, audio: hasAudio)
    }

    private static func rows(_ kind: LadderKind, codec: VideoCodec, quality: QualityTarget?) -> [(Int, RungRate)] {
        switch kind {
        case .apple:
            return appleTable.map { ($0.shortSide, RungRate.average(bitrate: $0.bitrate)) }
        case .perTitle:
            let saving = codec == .h264 ? 1.0 : 0.6
            let crf = perTitleCRF + codec.profile.crfAboveX264
            return perTitleTable.map { row in
                let ceiling = Int((Double(row.maxBitrate) * saving).rounded())
                return (row.shortSide, quality.map { RungRate.quality($0, maxBitrate: ceiling) } ?? .cappedCRF(crf: crf, maxBitrate: ceiling))
            }
        }
    }

    /// The video settings of `rung`, from the base preset's (codec, speed, pixel format, HDR handling kept).
    public static func settings(_ rung: LadderRung, plan: LadderPlan, base: VideoSettings) -> VideoSettings {
        var video = base
        video.maxSize = SizeBox(min(16384, rung.shortSide * 4), rung.shortSide)
        video.keyframeInterval = plan.segmentSeconds
        video.maxFrameRate = plan.maxFrameRate
        video.twoPass = false
        video.quality = nil
        switch rung.rate {
        case .cappedCRF(let crf, let ceiling):
            video.crf = crf; video.bitrate = nil; video.maxBitrate = ceiling; video.bufferSize = 2 * ceiling
        case .quality(let target, let ceiling):
            video.quality = target; video.bitrate = nil; video.maxBitrate = ceiling; video.bufferSize = 2 * ceiling
        case .average(let bitrate):
            video.bitrate = bitrate; video.maxBitrate = bitrate * 3 / 2; video.bufferSize = 2 * bitrate
        }
        return video
    }
}
