import Foundation

extension ExportEvent {
    /// The damage an export met in its input, each kind counted apart, by every route that reads packets (transcode,
    /// remux, salvage): what the `completed` record, the summary, the batch row and the warnings say.
    ///
    /// The rule of the limit (`--max-decode-errors`, 0 under `--strict`): it counts corrupt packets, each one, and the
    /// video frames lost where the data shows damage (a corrupt packet, an unreadable stretch, a demuxer's error):
    /// `counted`. A run
    /// over it fails as damaged, and the chain goes on as `--damaged` says. A hole in the timestamps with no damage
    /// in the data is how a recorder marks frames it never captured (a screen recorder's dropped frame, a camera's
    /// pause): said, never towards the limit; so is lost audio (the video's lost frames already count).
    public struct Damage: Codable, Sendable, Equatable {
        /// Packets the decoder or demuxer rejected, and frames the decoder flagged as concealed: skipped or shown as
        /// decoded.
        public var corruptPackets: Int
        /// Video frames missing from the data: holes in the timestamps of a constant-rate stream, or fewer frames than
        /// the header declares (AVI).
        public var lostFrames: Int
        /// Seconds of silence inserted where audio packets are missing.
        public var lostAudio: Double
        /// Bytes the demuxer searched through for its sync without reading anything (a zeroed stretch of MPEG-TS).
        public var unreadableBytes: Int64
        /// Errors the demuxer logged while reading (a resync in damaged data): evidence of damage, not counted apart.
        public var demuxerErrors: Int
        /// Where the first damage was met, seconds on the output's timeline.
        public var firstAt: Double?
        /// Main video frames delivered (encoded, or packets copied).
        public var videoFrames: Int?
        /// Main video frames its source holds for the part exported, when known (declared, or length × rate).
        public var expectedFrames: Int?

        /// Creates the value from each of its fields.
        public init(corruptPackets: Int = 0, lostFrames: Int = 0, lostAudio: Double = 0, unreadableBytes: Int64 = 0, demuxerErrors: Int = 0,
                    firstAt: Double? = nil, videoFrames: Int? = nil, expectedFrames: Int? = nil) {
            self.corruptPackets = corruptPackets; self.lostFrames = lostFrames; self.lostAudio = lostAudio
            self.unreadableBytes = unreadableBytes; self.demuxerErrors = demuxerErrors; self.firstAt = firstAt; self.videoFrames = videoFrames; self.expectedFrames = expectedFrames
        }

        /// What the limit counts (see the rule): corrupt packets, and lost frames where the data shows damage.
        public var counted: Int { corruptPackets > 0 || unreadableBytes > 0 || demuxerErrors > 0 ? total : corruptPackets }

        /// Corrupt packets and lost frames (the `completed` record's `skippedPackets`).
        public var total: Int { corruptPackets + lostFrames }

        /// True when nothing was met.
        public var isEmpty: Bool { total == 0 && lostAudio <= 0 && unreadableBytes == 0 }

        /// One line: "26 corrupt packets, 21 frames lost, 0.40 s of audio lost, 400 kB unreadable from 4.00 s (229 of
        /// 250 frames delivered)".
        public var summary: String {
            var parts: [String] = []
            if corruptPackets > 0 { parts.append("\(corruptPackets) corrupt packet\(corruptPackets == 1 ? "" : "s")") }
            if lostFrames > 0 { parts.append("\(lostFrames) frame\(lostFrames == 1 ? "" : "s") lost") }
            if lostAudio > 0 { parts.append(String(format: "%.2f s of audio lost", lostAudio)) }
            if unreadableBytes > 0 { parts.append("\(unreadableBytes / 1000) kB unreadable") }
            var line = parts.joined(separator: ", ")
            if let firstAt { line += String(format: " from %.2f s", firstAt) }
            if let videoFrames, let expectedFrames { line += " (\(videoFrames) of \(expectedFrames) frames delivered)" }
            return line
        }
    }
}
