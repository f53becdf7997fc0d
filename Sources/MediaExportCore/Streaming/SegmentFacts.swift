/// What one media segment (`styp`? then `moof` + `mdat` pairs) holds, measured from its boxes: per track the start
/// (`tfdt`), the duration and count of its samples (`trun`, with `tfhd`'s and `trex`'s defaults), whether it opens with
/// a sync sample; and the bytes an I-frame playlist points at.
public struct SegmentFacts: Equatable, Sendable {
    /// One track's samples in the segment.
    public struct Track: Equatable, Sendable {
        /// `track_ID`.
        public var id: UInt32
        /// The track's kind, from the init segment.
        public var kind: InitSegment.Kind
        /// The track's timescale (units per second).
        public var timescale: UInt32
        /// The first fragment's `tfdt` (`baseMediaDecodeTime`), in the timescale.
        public var startUnits: UInt64
        /// The sum of the samples' durations, in the timescale.
        public var durationUnits: UInt64
        /// How many samples.
        public var sampleCount: Int
        /// The first sample is a sync sample: not `sample_is_non_sync_sample`, and not `sample_depends_on` = 1.
        public var startsWithSync: Bool

        /// `startUnits` in seconds.
        public var start: Double { Double(startUnits) / Double(timescale) }
        /// `durationUnits` in seconds.
        public var duration: Double { Double(durationUnits) / Double(timescale) }
    }

    /// A byte range of the segment file (`#EXT-X-BYTERANGE:length@offset`).
    public struct ByteRange: Equatable, Sendable {
        /// The first byte's offset in the file.
        public var offset: Int
        /// How many bytes.
        public var length: Int
    }

    /// The file's name (`seg_00000.m4s`), as a playlist names it.
    public var name: String
    /// The file's size.
    public var bytes: Int
    /// The tracks in the order their first `traf` came.
    public var tracks: [Track]
    /// From the start of the `moof` that holds the first video sample to the end of that sample: what an I-frame
    /// playlist fetches. Nil without video.
    public var firstVideoSample: ByteRange?

    /// The first video track, else the first audio track: the track a playlist's durations follow.
    public var timing: Track? { tracks.first { $0.kind == .video } ?? tracks.first { $0.kind == .audio } }

    /// Values named directly (for tests).
    public init(name: String, bytes: Int, tracks: [Track], firstVideoSample: ByteRange?) {
        self.name = name
        self.bytes = bytes
        self.tracks = tracks
        self.firstVideoSample = firstVideoSample
    }

    /// Reads the segment `bytes`, named `name`, with the tracks and defaults `initSegment` describes. Throws `MP4Fault`
    /// for bytes that are not a media segment: no `moof`, a `traf` without `tfhd` or `tfdt`, a track the init segment
    /// lacks, a `trun` whose samples run past its box or whose first video sample runs past the file.
    public init(name: String, bytes: [UInt8], initSegment: InitSegment) throws(MP4Fault) {
        let file = MP4Bytes(bytes: bytes)
        var reader = FragmentReader(file: file, initSegment: initSegment)
        for box in try file.boxes(in: 0..<bytes.count) where box.type == "moof" {
            try reader.moof(box)
        }
        guard reader.sawFragment else { throw .missing(box: "moof") }
        self.init(name: name, bytes: bytes.count, tracks: reader.tracks, firstVideoSample: reader.firstVideoSample)
    }
}

/// The pass over a segment's fragments, adding each `traf`'s samples to its track.
private struct FragmentReader {
    let file: MP4Bytes
    let initSegment: InitSegment
    var tracks: [SegmentFacts.Track] = []
    var firstVideoSample: SegmentFacts.ByteRange?
    var sawFragment = false

    /// What one `tfhd` says: the track, where its data offsets count from, its defaults.
    private struct FragmentHeader {
        var track: InitSegment.Track
        var dataBase: Int
        var defaults: InitSegment.SampleDefaults
    }

    init(file: MP4Bytes, initSegment: InitSegment) {
        self.file = file
        self.initSegment = initSegment
    }

    mutating func moof(_ moof: MP4Box) throws(MP4Fault) {
        sawFragment = true
        for traf in try file.children(of: moof) where traf.type == "traf" {
            let children = try file.children(of: traf)
            guard let tfhd = children.first(where: { $0.type == "tfhd" }) else { throw .missing(box: "tfhd") }
            guard let tfdt = children.first(where: { $0.type == "tfdt" }) else { throw .missing(box: "tfdt") }
            let header = try self.header(tfhd, moof: moof)
            let v1 = try file.u8(tfdt.payload.lowerBound, tfdt) == 1
            let decodeTime = v1 ? try file.u64(tfdt.payload.lowerBound + 4, tfdt) : UInt64(try file.u32(tfdt.payload.lowerBound + 4, tfdt))
            var dataCursor = header.dataBase
            for trun in children where trun.type == "trun" {
                let run = try TrackRun(trun, in: file, defaults: header.defaults, dataBase: header.dataBase, cursor: dataCursor)
                dataCursor = run.dataEnd
                try add(run, header: header, decodeTime: decodeTime, moof: moof)
            }
        }
    }

    /// `tfhd`: the track, an explicit base data offset (else the `moof`'s start: CMAF's default-base-is-moof), and the
    /// defaults it overrides.
    private func header(_ tfhd: MP4Box, moof: MP4Box) throws(MP4Fault) -> FragmentHeader {
        let at = tfhd.payload.lowerBound
        let flags = try file.u32(at, tfhd) & 0xFF_FFFF
        let id = try file.u32(at + 4, tfhd)
        guard let track = initSegment.tracks.first(where: { $0.id == id }) else { throw .unknownTrack(id: id) }
        var p = at + 8, base = moof.start, defaults = track.defaults
        if flags & 0x01 != 0 {
            let raw = try file.u64(p, tfhd)
            guard raw <= UInt64(TrackRun.largestOffset) else { throw .malformed(box: "tfhd") }
            base = Int(raw)
            p += 8
        }
        if flags & 0x02 != 0 { p += 4 }
        if flags & 0x08 != 0 { defaults.duration = try file.u32(p, tfhd); p += 4 }
        if flags & 0x10 != 0 { defaults.size = try file.u32(p, tfhd); p += 4 }
        if flags & 0x20 != 0 { defaults.flags = try file.u32(p, tfhd) }
        return FragmentHeader(track: track, dataBase: base, defaults: defaults)
    }

    private mutating func add(_ run: TrackRun, header: FragmentHeader, decodeTime: UInt64, moof: MP4Box) throws(MP4Fault) {
        guard run.count > 0 else { return }
        let track = header.track
        if let i = tracks.firstIndex(where: { $0.id == track.id }) {
            let (sum, overflow) = tracks[i].durationUnits.addingReportingOverflow(run.duration)
            guard !overflow else { throw .malformed(box: "trun") }
            tracks[i].durationUnits = sum
            tracks[i].sampleCount += run.count
            return
        }
        tracks.append(SegmentFacts.Track(id: track.id, kind: track.kind, timescale: track.timescale, startUnits: decodeTime,
                                         durationUnits: run.duration, sampleCount: run.count,
                                         startsWithSync: TrackRun.isSync(run.firstFlags)))
        if track.kind == .video && firstVideoSample == nil {
            guard run.firstSampleEnd <= file.bytes.count, run.firstSampleEnd > moof.start else { throw .truncated(box: "mdat") }
            firstVideoSample = SegmentFacts.ByteRange(offset: moof.start, length: run.firstSampleEnd - moof.start)
        }
    }
}

/// One `trun`'s samples, summed: no array sized by its sample count is made, and the count is checked against the
/// bytes its per-sample fields need before any is read.
struct TrackRun {
    var count = 0
    var duration: UInt64 = 0
    var firstFlags: UInt32 = 0
    /// One past the first sample's last byte, in the file.
    var firstSampleEnd = 0
    /// One past the last sample's last byte: where the next `trun` without a data offset starts.
    var dataEnd = 0

    /// The largest offset or byte count taken from a file (1 PiB): sums of a few such never overflow an `Int`.
    static let largestOffset = 1 << 50

    /// A sync sample: `sample_is_non_sync_sample` clear and `sample_depends_on` not 1 (depends on others).
    static func isSync(_ flags: UInt32) -> Bool { flags & 0x0001_0000 == 0 && flags >> 24 & 0x3 != 1 }

    init(_ trun: MP4Box, in file: MP4Bytes, defaults: InitSegment.SampleDefaults, dataBase: Int, cursor: Int) throws(MP4Fault) {
        let at = trun.payload.lowerBound
        let flags = try file.u32(at, trun) & 0xFF_FFFF
        let sampleCount = try file.u32(at + 4, trun)
        var p = at + 8, dataStart = cursor
        if flags & 0x001 != 0 {
            dataStart = dataBase + Int(Int32(bitPattern: try file.u32(p, trun)))
            p += 4
        }
        var firstFlags: UInt32?
        if flags & 0x004 != 0 { firstFlags = try file.u32(p, trun); p += 4 }
        let fields = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32($0) != 0 }.count
        let entry = 4 * fields
        guard UInt64(sampleCount) * UInt64(entry) <= UInt64(trun.payload.upperBound - p) else { throw .truncated(box: "trun") }
        count = Int(sampleCount)
        var sizes: UInt64 = 0, firstSize = UInt64(defaults.size), sampleFlags0 = defaults.flags
        if entry == 0 {
            let (total, overflow) = UInt64(sampleCount).multipliedReportingOverflow(by: UInt64(defaults.duration))
            guard !overflow else { throw .malformed(box: "trun") }
            duration = total
            sizes = UInt64(sampleCount) * UInt64(defaults.size)
        }
        for i in 0..<(entry == 0 ? 0 : count) {
            var q = p + i * entry
            let sampleDuration = flags & 0x100 != 0 ? try file.u32(q, trun) : defaults.duration
            if flags & 0x100 != 0 { q += 4 }
            let size = flags & 0x200 != 0 ? try file.u32(q, trun) : defaults.size
            if flags & 0x200 != 0 { q += 4 }
            if i == 0 {
                firstSize = UInt64(size)
                if flags & 0x400 != 0 { sampleFlags0 = try file.u32(q, trun) }
            }
            duration += UInt64(sampleDuration)  // at most 2³² samples of 2³² units: no overflow
            sizes += UInt64(size)
        }
        self.firstFlags = firstFlags ?? sampleFlags0
        guard dataStart >= 0, dataStart <= Self.largestOffset, sizes <= UInt64(Self.largestOffset) else { throw .malformed(box: "trun") }
        firstSampleEnd = dataStart + Int(firstSize)
        dataEnd = dataStart + Int(sizes)
    }
}
