import Foundation
import Testing
@testable import MediaExportCore

/// Hand-built JPEG and PNG bytes: what `PictureMetadata.strip` keeps (every byte a decoder reads) and removes (EXIF,
/// XMP, IPTC, comments, text), that hostile bytes give a fault and never a trap, and what the planner, the start
/// decision and the verifier make of a cover's read.
/// The UTF-8 bytes of `s`.
private func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }

@Suite struct PictureMetadataTests {
    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }

    static let jfif = segment(0xE0, ascii("JFIF\0") + [1, 2, 0, 0, 1, 0, 1, 0, 0])
    static let exif = segment(0xE1, ascii("Exif\0\0MM\0*") + [0, 0, 0, 8] + ascii("Artist Jane GPS 48N BodySerialNumber 0123"))
    static let xmp = segment(0xE1, ascii("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>creator</x:xmpmeta>"))
    static let iptc = segment(0xED, ascii("Photoshop 3.0\08BIM") + [4, 4, 0, 0] + ascii("By-line Jane"))
    static let icc = segment(0xE2, ascii("ICC_PROFILE\0") + [1, 1] + [UInt8](repeating: 7, count: 20))
    static let mpf = segment(0xE2, ascii("MPF\0") + [1, 2, 3])
    static let adobe = segment(0xEE, ascii("Adobe") + [0, 100, 0, 0, 0, 0, 1])
    static let comment = segment(0xFE, ascii("Lavc59.37.100"))
    static let tables = segment(0xDB, [0] + [UInt8](repeating: 1, count: 64)) + segment(0xC0, [8, 0, 16, 0, 16, 1, 1, 0x11, 0])
        + segment(0xC4, [0, 0, 1] + [UInt8](repeating: 0, count: 15) + [0])
    /// A scan header, entropy-coded data holding stuffed 0xFF 0x00 and a restart marker, and EOI.
    static let scan = segment(0xDA, [1, 1, 0, 0, 63, 0]) + [0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56, 0xFF, 0xFF, 0xD9]

    static var jpeg: [UInt8] {
        [0xFF, 0xD8] + jfif + exif + xmp + icc + mpf + iptc + adobe + comment + tables + scan + ascii("trailer GPS")
    }

    @Test func jpegKeepsWhatTheDecoderReadsAndRemovesTheRest() throws {
        let stripped = try PictureMetadata.strip(Self.jpeg).get()
        #expect(stripped.format == .jpeg)
        #expect(stripped.bytes == [0xFF, 0xD8] + Self.jfif + Self.icc + Self.adobe + Self.tables + Self.scan)
        let removed: [PictureMetadata.Removed] = [
            .init(kind: .exif, bytes: Self.exif.count), .init(kind: .xmp, bytes: Self.xmp.count), .init(kind: .iptc, bytes: Self.iptc.count),
            .init(kind: .comment, bytes: Self.comment.count), .init(kind: .application, bytes: Self.mpf.count), .init(kind: .trailer, bytes: 11),
        ]
        #expect(stripped.removed == removed)
        // Stripping again finds nothing: what the verifier reads back from an output.
        #expect(PictureMetadata.scan(stripped.bytes) == .readable(.jpeg, removes: []))
        #expect(PictureMetadata.describe(stripped.removed).hasPrefix("EXIF \(Self.exif.count) bytes, XMP"))
    }

    @Test func anExifOrientationStaysOnItsOwn() throws {
        // II byte order, IFD0: Artist (ASCII at offset 26) and Orientation 6 (90° clockwise).
        let artist: [UInt8] = [0x3B, 0x01, 2, 0, 5, 0, 0, 0, 26, 0, 0, 0], orientation6: [UInt8] = [0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0]
        let header: [UInt8] = ascii("II*\0") + [8, 0, 0, 0, 2, 0]
        let tiff: [UInt8] = header + artist + orientation6 + [0, 0, 0, 0] + ascii("Jane\0")
        let exif: [UInt8] = Self.segment(0xE1, ascii("Exif\0\0") + tiff)
        let start: [UInt8] = [0xFF, 0xD8] + Self.jfif
        let stripped = try PictureMetadata.strip(start + exif + Self.tables + Self.scan).get()
        let orientation = PictureMetadata.ExifOrientation.segment(6)
        let expected: [UInt8] = start + orientation + Self.tables + Self.scan
        #expect(stripped.bytes == expected)
        #expect(stripped.removed == [.init(kind: .exif, bytes: exif.count - orientation.count)])
        #expect(!String(decoding: stripped.bytes, as: UTF8.self).contains("Jane"))
        #expect(PictureMetadata.scan(stripped.bytes) == .readable(.jpeg, removes: []))
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let n = UInt32(data.count)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + ascii(type) + data + [1, 2, 3, 4]
    }

    @Test func pngDropsTextExifAndTimeChunks() throws {
        let ihdr = Self.chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]), iccp = Self.chunk("iCCP", ascii("sRGB\0\0") + [9, 9])
        let idat = Self.chunk("IDAT", [0x78, 0x9C, 1, 2, 3]), end = Self.chunk("IEND", [])
        let meta: [[UInt8]] = [Self.chunk("tEXt", ascii("Author\0Jane")), Self.chunk("eXIf", ascii("MM\0*GPS")),
                               Self.chunk("tIME", [7, 0xE8, 1, 1, 0, 0, 0]), Self.chunk("iTXt", ascii("XML:com.adobe.xmp\0\0\0\0\0<x/>")),
                               Self.chunk("zTXt", ascii("Comment\0\0x"))]
        let head: [UInt8] = PictureMetadata.pngSignature + ihdr + iccp
        let png: [UInt8] = head + meta[0] + meta[1] + idat + meta[2] + meta[3] + meta[4] + end + ascii("GPS")
        let stripped = try PictureMetadata.strip(png).get()
        let expected: [UInt8] = head + idat + end
        #expect(stripped.format == .png && stripped.bytes == expected)
        let kinds: [PictureMetadata.Kind] = [.exif, .xmp, .text, .time, .trailer]
        #expect(stripped.removed.map(\.kind) == kinds)
        #expect(stripped.removed.first { $0.kind == .text }?.bytes == meta[0].count + meta[4].count)
    }

    @Test func hostileBytesGiveAFaultNeverATrap() {
        #expect(PictureMetadata.scan(Array("GIF89a".utf8)) == .unreadable(.unknownFormat))
        #expect(PictureMetadata.scan([]) == .unreadable(.unknownFormat))
        #expect(PictureMetadata.scan([0xFF, 0xD8, 0xFF, 0xE1, 0x00]) == .unreadable(.truncated))
        #expect(PictureMetadata.scan([0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01]) == .unreadable(.malformed))
        #expect(PictureMetadata.scan([0xFF, 0xD8, 0xFF, 0xFE, 0x00, 0x02, 0x12]) == .unreadable(.malformed))
        #expect(PictureMetadata.scan(PictureMetadata.pngSignature + [0xFF, 0xFF, 0xFF, 0xFF] + ascii("tEXt")) == .unreadable(.malformed))
        // Every truncation of both pictures, and random bytes after each signature: a result, never a trap.
        let png = PictureMetadata.pngSignature + Self.chunk("IHDR", [1, 2]) + Self.chunk("IEND", [])
        for picture in [Self.jpeg, png] {
            for n in 0...picture.count { _ = PictureMetadata.strip(Array(picture.prefix(n))) }
        }
        var seed: UInt64 = 44
        for round in 0..<2000 {
            var bytes = round % 2 == 0 ? [0xFF, 0xD8, 0xFF] : PictureMetadata.pngSignature
            for _ in 0..<(round % 97) {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                bytes.append(UInt8(truncatingIfNeeded: seed >> 33))
            }
            if case .success(let s) = PictureMetadata.strip(bytes) {
                #expect(s.bytes.count + s.removed.map(\.bytes).reduce(0, +) <= bytes.count + PictureMetadata.ExifOrientation.segment(1).count)
            }
        }
    }

    static func source(cover picture: PictureMetadata.Scan?, codec: String = "mjpeg") -> SourceInfo {
        var cover = SourceStream.cover(2, codec: codec)
        cover.fitsIn = [.mp4, .mov, .mkv]
        cover.picture = picture
        return .make([.h264(0, 1280, 720), .aac(1), cover])
    }

    static func preset(_ level: MetadataLevel) -> Preset {
        var p = Presets.named("passthrough")
        p.metadata = level
        return p
    }

    @Test func theLevelDecidesEachCover() throws {
        let exif = PictureMetadata.Scan.readable(.jpeg, removes: [.init(kind: .exif, bytes: 300)])
        for container in [Container.mp4, .mkv] {
            let all = try planned(Self.source(cover: exif), Self.preset(.all), container: container).streams[2]
            #expect(all.action == .coverArt(stripsMetadata: false) && all.changes.isEmpty)
            for level in [MetadataLevel.sharing, .bare] {
                let plan = try planned(Self.source(cover: exif), Self.preset(level), container: container)
                #expect(plan.streams[2].action == .coverArt(stripsMetadata: true))
                #expect(plan.notes.contains("stream #2 video: picture metadata stripped (EXIF 300 bytes), the pixels unchanged"))
                #expect(plan.streamPlans[2].changes == [StreamChange(kind: .pictureMetadata, from: "EXIF 300 bytes", to: "none")])
                // A picture that cannot be stripped is never kept with its metadata: dropped, saying why.
                let gif = try planned(Self.source(cover: .unreadable(.unknownFormat), codec: "gif"), Self.preset(level), container: .mkv)
                #expect(gif.streams[2].action == .drop(reason:
                    "cover art: its picture is neither JPEG nor PNG, so its metadata (EXIF, XMP, IPTC) cannot be stripped (--metadata \(level.rawValue))"))
            }
        }
        // A clean picture is stripped all the same (nothing to say).
        let clean = try planned(Self.source(cover: .readable(.png, removes: [])), Self.preset(.sharing), container: .mp4)
        #expect(clean.streams[2].action == .coverArt(stripsMetadata: true) && clean.streams[2].changes.isEmpty)
    }

    @Test func aCoverWithMetadataIsRemuxedNotCopiedNorTranscoded() {
        let exif = Self.source(cover: .readable(.jpeg, removes: [.init(kind: .exif, bytes: 300), .init(kind: .xmp, bytes: 40)]))
        var preset = Presets.named("highest")
        preset.metadata = .sharing
        var request = ExportRequest(input: "/in/clip.mp4", output: "/out/clip", preset: preset)
        request.policy = .needed
        for (source, route) in [(exif, ExportRoute.remux), (Self.source(cover: .readable(.jpeg, removes: [])), .copy)] {
            let decision = ExportPlanner.start(StartQuestion(request: request, source: source, resourceExtension: "mp4"), truncation: { nil })
            #expect(decision.route == route, "\(decision.reason)")
        }
        #expect(CoverArt.itemsRemoved(exif, level: .sharing) == 2 && CoverArt.itemsRemoved(exif, level: .all) == 0)
    }

    @Test func theVerifierReadsTheCoverBack() {
        var decision = StreamDecision(index: 2, kind: .video, codec: "mjpeg", action: .coverArt(stripsMetadata: true))
        var out = OutputFacts.Stream(kind: .video, codec: "mjpeg")
        func check() -> Verification.Check? { OutputVerifier.pictureMetadataCheck(label: "stream #2 video", decision: decision, out: out).first }
        out.picture = .readable(.jpeg, removes: [])
        #expect(check()?.outcome == .passed && check()?.reason == nil)
        out.picture = .readable(.jpeg, removes: [.init(kind: .exif, bytes: 12)])
        #expect(check()?.outcome == .failed && check()?.reason == .pictureMetadataLeft && check()?.measured == "EXIF 12 bytes")
        out.picture = .unreadable(.truncated)
        #expect(check()?.reason == .pictureUnreadable)
        out.picture = nil
        #expect(check()?.reason == .pictureUnreadable)
        decision.action = .coverArt(stripsMetadata: false)
        #expect(check() == nil)
    }
}
