/// What a fragmented MP4's init segment (`ftyp` + `moov`) says of its tracks: the facts a manifest needs and the
/// sample defaults (`trex`) that its media segments lean on.
public struct InitSegment: Equatable, Sendable {
    /// What a track carries, from its `hdlr`.
    public enum Kind: Equatable, Sendable {
        case video, audio, other
    }

    /// The values a fragment's samples take when neither its `tfhd` nor its `trun` gives them (`trex`).
    public struct SampleDefaults: Equatable, Sendable {
        /// `default_sample_duration`, in the track's timescale.
        public var duration: UInt32 = 0
        /// `default_sample_size`, in bytes.
        public var size: UInt32 = 0
        /// `default_sample_flags` (ISO/IEC 14496-12 8.8.3.1).
        public var flags: UInt32 = 0
    }

    /// One `trak`.
    public struct Track: Equatable, Sendable {
        /// `track_ID`, which a media segment's `tfhd` names.
        public var id: UInt32
        /// Video, audio or other, from `hdlr`.
        public var kind: Kind
        /// `mdhd`'s timescale: units per second of every time in the track.
        public var timescale: UInt32
        /// The sample entry's four-character type (`avc1`, `mp4a`).
        public var sampleEntry: String
        /// The RFC 6381 codec string (`avc1.64001F`, `mp4a.40.2`), or nil for a sample entry not read here.
        public var codec: String?
        /// The picture size: `tkhd`'s (the displayed size), else the visual sample entry's; nil for sound.
        public var width: Int?
        /// The picture height, as `width`.
        public var height: Int?
        /// The track's `trex` defaults (zero when `mvex` has none for it).
        public var defaults: SampleDefaults
    }

    /// The tracks in `moov` order.
    public var tracks: [Track]

    /// The first video track, else the first audio track: the track whose timing a playlist follows.
    public var timingTrack: Track? { tracks.first { $0.kind == .video } ?? tracks.first { $0.kind == .audio } }

    /// Reads an init segment. Throws `MP4Fault` for bytes that are not one (truncated, malformed, no `moov`, a track
    /// with no `mdhd` timescale).
    public init(bytes: [UInt8]) throws(MP4Fault) {
        let file = MP4Bytes(bytes: bytes)
        guard let moov = try file.boxes(in: 0..<bytes.count).first(where: { $0.type == "moov" }) else {
            throw .missing(box: "moov")
        }
        let children = try file.children(of: moov)
        var defaults: [UInt32: SampleDefaults] = [:]
        if let mvex = children.first(where: { $0.type == "mvex" }) {
            for trex in try file.children(of: mvex) where trex.type == "trex" {
                let at = trex.payload.lowerBound
                defaults[try file.u32(at + 4, trex)] = SampleDefaults(
                    duration: try file.u32(at + 12, trex), size: try file.u32(at + 16, trex), flags: try file.u32(at + 20, trex))
            }
        }
        var tracks: [Track] = []
        for trak in children where trak.type == "trak" {
            var track = try Self.track(trak, in: file)
            track.defaults = defaults[track.id] ?? SampleDefaults()
            tracks.append(track)
        }
        self.tracks = tracks
    }

    /// Tracks named directly (for tests and for a caller that knows them).
    public init(tracks: [Track]) { self.tracks = tracks }

    /// One `trak`: `tkhd` (id, size), `mdia/mdhd` (timescale), `mdia/hdlr` (kind), `stsd`'s first entry (codec).
    private static func track(_ trak: MP4Box, in file: MP4Bytes) throws(MP4Fault) -> Track {
        let tkhd = try file.required("tkhd", of: trak)
        let tkhdV1 = try file.u8(tkhd.payload.lowerBound, tkhd) == 1
        let id = try file.u32(tkhd.payload.lowerBound + (tkhdV1 ? 20 : 12), tkhd)
        let sizeAt = tkhd.payload.lowerBound + (tkhdV1 ? 88 : 76)
        let shownWidth = Int(try file.u32(sizeAt, tkhd) >> 16), shownHeight = Int(try file.u32(sizeAt + 4, tkhd) >> 16)
        let mdia = try file.required("mdia", of: trak)
        let mdhd = try file.required("mdhd", of: mdia)
        let mdhdV1 = try file.u8(mdhd.payload.lowerBound, mdhd) == 1
        let timescale = try file.u32(mdhd.payload.lowerBound + (mdhdV1 ? 20 : 12), mdhd)
        guard timescale > 0 else { throw .malformed(box: "mdhd") }
        let hdlr = try file.required("hdlr", of: mdia)
        let handler = MP4Bytes.fourCC(ArraySlice(try file.u32(hdlr.payload.lowerBound + 8, hdlr).bigEndianBytes))
        let kind: Kind = handler == "vide" ? .video : handler == "soun" ? .audio : .other
        let stbl = try file.required("stbl", of: try file.required("minf", of: mdia))
        let stsd = try file.required("stsd", of: stbl)
        guard let entry = try file.children(of: stsd, skip: 8).first else { throw .missing(box: "stsd entry") }
        let described = try SampleEntryCodec.describe(entry, in: file, visual: kind == .video)
        let width = shownWidth > 0 ? shownWidth : described.width
        let height = shownHeight > 0 ? shownHeight : described.height
        return Track(id: id, kind: kind, timescale: timescale, sampleEntry: entry.type, codec: described.codec,
                     width: kind == .video ? width : nil, height: kind == .video ? height : nil, defaults: SampleDefaults())
    }
}

extension UInt32 {
    /// The four bytes, most significant first.
    var bigEndianBytes: [UInt8] { [UInt8(self >> 24), UInt8(self >> 16 & 0xFF), UInt8(self >> 8 & 0xFF), UInt8(self & 0xFF)] }
}
