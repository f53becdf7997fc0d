import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// A cover's own metadata (issue 44): a JPEG with EXIF (GPS, Artist, BodySerialNumber), XMP and IPTC, as an MP4's and a
/// MOV's `covr` and as a Matroska attachment, exported with `--metadata sharing` and `none` into .mp4, .mov and .mkv:
/// the output's cover holds none of it and decodes to the same pixels (ffmpeg's MD5 of the decoded picture); `all`
/// keeps the picture byte for byte. Inputs are made with the ffmpeg CLI and the metadata segments written here.
@Suite struct CoverMetadataTests {
    static let secrets = ["Jane Secret Photographer", "BODYSERIAL0123456789", "XMPSecretAuthor", "IPTCSecretName", "Exif\0\0"]

    /// A big-endian EXIF APP1 segment: IFD0 with Artist and the EXIF and GPS IFDs, the EXIF IFD with BodySerialNumber,
    /// the GPS IFD with GPSLatitudeRef N and GPSLatitude 48° 51′ 24.12″.
    static func exifSegment() -> [UInt8] {
        func be(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * (n - 1 - $0))) } }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            be(tag, 2) + be(type, 2) + be(count, 4) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        let artist = Array("Jane Secret Photographer\0\0".utf8), serial = Array("BODYSERIAL0123456789\0\0".utf8)
        let (exifIFD, gpsIFD, artistAt) = (50, 68, 98)
        let serialAt = artistAt + artist.count, latitudeAt = serialAt + serial.count
        var tiff: [UInt8] = Array("MM\0*".utf8) + be(8, 4)
        tiff += be(3, 2) + entry(0x013B, 2, 25, be(artistAt, 4)) + entry(0x8769, 4, 1, be(exifIFD, 4)) + entry(0x8825, 4, 1, be(gpsIFD, 4)) + be(0, 4)
        tiff += be(1, 2) + entry(0xA431, 2, 21, be(serialAt, 4)) + be(0, 4)
        tiff += be(2, 2) + entry(0x0001, 2, 2, Array("N\0".utf8)) + entry(0x0002, 5, 3, be(latitudeAt, 4)) + be(0, 4)
        tiff += artist + serial + [48, 1, 51, 1, 2412, 100].flatMap { be($0, 4) }
        return segment(0xE1, Array("Exif\0\0".utf8) + tiff)
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }

    /// A 320x240 JPEG from the ffmpeg CLI with EXIF, XMP and IPTC segments after its JFIF segment.
    static func exifJPEG(in dir: URL) throws -> String {
        let path = try CoverArtTests.picture(in: dir)
        let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let afterJFIF = 4 + (Int(plain[4]) << 8 | Int(plain[5]))
        let xmp = segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta><dc:creator>XMPSecretAuthor</dc:creator></x:xmpmeta>".utf8))
        let iptc = segment(0xED, Array("Photoshop 3.0\08BIM\u{4}\u{4}\0\0\0\0\0\u{14}\u{1C}\u{2}P\0\u{E}IPTCSecretName".utf8))
        let tagged = Array(plain[..<afterJFIF]) + exifSegment() + xmp + iptc + Array(plain[afterJFIF...])
        let out = dir.appendingPathComponent("exif.jpg").path
        try Data(tagged).write(to: URL(fileURLWithPath: out))
        return out
    }

    /// 1 s of H.264 + AAC with `picture` as cover art: `mp4` and `mov` (an MP4 `covr`, the MOV with QuickTime's brand),
    /// or `mkv` (an attachment).
    static func source(_ ext: String, picture: String, in dir: URL, mime: String = "image/jpeg") throws -> String {
        let path = dir.appendingPathComponent("src.\(ext)").path
        let av = ["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1", "-f", "lavfi", "-i", "sine=duration=1"]
        let codecs = ["-c:v:0", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac"]
        if ext == "mkv" {
            try TestSupport.ffmpeg(av + ["-map", "0", "-map", "1"] + codecs + ["-attach", picture, "-metadata:s:t", "mimetype=\(mime)",
                                                                            "-metadata:s:t", "filename=cover.\(mime.dropFirst(6))", path])
        } else {
            try TestSupport.ffmpeg(av + ["-i", picture, "-map", "0", "-map", "1", "-map", "2"] + codecs
                                   + ["-c:v:1", "copy", "-disposition:v:1", "attached_pic", "-f", "mp4"] + (ext == "mov" ? ["-brand", "qt  "] : []) + [path])
        }
        return path
    }

    /// The cover's bytes as stored (a stream copy of the attached picture), nil without one.
    static func coverBytes(_ path: String, in dir: URL) throws -> [UInt8]? {
        guard let index = try CoverArtTests.streams(path).firstIndex(where: \.attachedPicture) else { return nil }
        let out = dir.appendingPathComponent("read-back-\(UUID().uuidString).img").path
        try TestSupport.ffmpeg(["-i", path, "-map", "0:\(index)", "-c", "copy", "-frames:v", "1", "-f", "image2", out])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
    }

    /// ffmpeg's MD5 of the decoded picture in `path` (its first attached picture when `stream` is given).
    static func decodedMD5(_ path: String, stream: Int? = nil) throws -> String {
        let map = stream.map { ["-map", "0:\($0)"] } ?? []
        let r = try TestSupport.run("/usr/bin/ffmpeg", ["-v", "error", "-i", path] + map + ["-frames:v", "1", "-f", "md5", "-"])
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func export(_ input: String, to output: String, level: MetadataLevel, preset: String = "passthrough") throws -> ExportEvent.Completed {
        var p = try TestSupport.preset(preset)
        p.metadata = level
        return try ExportSession(request: ExportRequest(input: input, output: output, preset: p)).run()
    }

    static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= bytes.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    @Test(arguments: ["mp4", "mov", "mkv"])
    func sharingAndNoneStripTheCoverKeepingItsPixels(_ sourceExt: String) throws {
        let dir = TestSupport.tempDir("cover-exif-\(sourceExt)")
        defer { TestSupport.cleanup(dir) }
        let picture = try Self.exifJPEG(in: dir)
        let pixels = try Self.decodedMD5(picture)
        let input = try Self.source(sourceExt, picture: picture, in: dir)
        #expect(try Self.coverBytes(input, in: dir) == [UInt8](try Data(contentsOf: URL(fileURLWithPath: picture))))
        for level in [MetadataLevel.sharing, .bare] {
            for ext in ["mp4", "mov", "mkv"] {
                let out = dir.appendingPathComponent("out-\(level.rawValue).\(ext)").path
                let completed = try Self.export(input, to: out, level: level, preset: ext == "mkv" ? "low" : "passthrough")
                #expect(completed.fallbacks.isEmpty && completed.verification?.passed == true, "\(completed.fallbacks) \(completed.verification?.failureSummary ?? "")")
                let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
                for secret in Self.secrets { #expect(!Self.contains(file, Array(secret.utf8)), "\(out): \(secret)") }
                guard ext != "mov" else {
                    // FFmpeg's MOV muxer writes no cover at all: dropped, and said.
                    #expect(try Self.coverBytes(out, in: dir) == nil)
                    #expect(completed.warnings.contains { $0.contains("MOV muxer does not write it") }, "\(completed.warnings)")
                    continue
                }
                let cover = try #require(try Self.coverBytes(out, in: dir), "\(out): no cover")
                #expect(!Self.contains(cover, [0xFF, 0xE1]) && !Self.contains(cover, [0xFF, 0xED]), "\(out): an APP1/APP13 segment is left")
                let index = try #require(try CoverArtTests.streams(out).firstIndex(where: \.attachedPicture))
                #expect(try Self.decodedMD5(out, stream: index) == pixels, "\(out)")
                #expect(completed.notes.contains { $0.hasPrefix("stream #2 video: picture metadata stripped (EXIF ") }, "\(completed.notes)")
                let check = completed.verification?.checks.first { $0.name.hasSuffix("cover art metadata") }
                #expect(check?.outcome == .passed && check?.measured == "none", "\(String(describing: check))")
            }
        }
    }

    @Test(arguments: ["mp4", "mkv"])
    func allKeepsTheCoverByteForByte(_ ext: String) throws {
        let dir = TestSupport.tempDir("cover-exif-all-\(ext)")
        defer { TestSupport.cleanup(dir) }
        let picture = try Self.exifJPEG(in: dir)
        let input = try Self.source(ext, picture: picture, in: dir)
        let out = dir.appendingPathComponent("out.\(ext)").path
        let completed = try Self.export(input, to: out, level: .all)
        #expect(completed.verification?.passed == true && !completed.notes.contains { $0.contains("picture metadata") })
        #expect(try Self.coverBytes(out, in: dir) == [UInt8](try Data(contentsOf: URL(fileURLWithPath: picture))))
    }

    /// The PNG chunk `type` holding `data`, with its CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in body {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        let be = { (v: UInt32) in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
        return be(UInt32(data.count)) + body + be(crc)
    }

    @Test func aPNGCoverLosesItsTextAndExifChunks() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let plainPath = dir.appendingPathComponent("plain.png").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=1", "-frames:v", "1", plainPath])
        let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plainPath)))
        let afterIHDR = 8 + 25
        let meta = Self.chunk("tEXt", Array("Author\0Jane Secret Photographer".utf8)) + Self.chunk("eXIf", Array(Self.exifSegment().dropFirst(10)))
            + Self.chunk("tIME", [7, 0xE8, 5, 1, 12, 0, 0])
        let picture = dir.appendingPathComponent("cover.png").path
        try Data(Array(plain[..<afterIHDR]) + meta + Array(plain[afterIHDR...])).write(to: URL(fileURLWithPath: picture))
        let input = try Self.source("mp4", picture: picture, in: dir)
        let out = dir.appendingPathComponent("out.mkv").path
        let completed = try Self.export(input, to: out, level: .sharing)
        #expect(completed.verification?.passed == true, "\(completed.verification?.failureSummary ?? "")")
        let cover = try #require(try Self.coverBytes(out, in: dir))
        #expect(!Self.contains(cover, Array("Jane".utf8)) && !Self.contains(cover, Array("eXIf".utf8)) && !Self.contains(cover, Array("tIME".utf8)))
        let index = try #require(try CoverArtTests.streams(out).firstIndex(where: \.attachedPicture))
        #expect(try Self.decodedMD5(out, stream: index) == Self.decodedMD5(picture))
        #expect(completed.notes.contains { $0.contains("picture metadata stripped (EXIF") && $0.contains("text") && $0.contains("time") }, "\(completed.notes)")
    }

    @Test func aCoverThatCannotBeStrippedIsDroppedAndSaid() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let gif = dir.appendingPathComponent("cover.gif").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48:rate=1", "-frames:v", "1", gif])
        let input = try Self.source("mkv", picture: gif, in: dir, mime: "image/gif")
        #expect(try CoverArtTests.covers(input).map(\.codec) == ["gif"])
        let out = dir.appendingPathComponent("out.mkv").path
        let completed = try Self.export(input, to: out, level: .sharing)
        #expect(completed.verification?.passed == true && completed.fallbacks.isEmpty)
        #expect(try CoverArtTests.covers(out).isEmpty)
        #expect(completed.warnings.contains { $0.contains("cover art: its picture is neither JPEG nor PNG, so its metadata (EXIF, XMP, IPTC) cannot be stripped") },
                "\(completed.warnings)")
        // `all` keeps it.
        let kept = dir.appendingPathComponent("kept.mkv").path
        _ = try Self.export(input, to: kept, level: .all)
        #expect(try CoverArtTests.covers(kept).map(\.codec) == ["gif"])
    }
}
