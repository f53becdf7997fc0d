/// The metadata a cover picture carries beside its pixels, and the picture without it: JPEG's APP1 (EXIF, XMP), APP13
/// (IPTC), COM and the other application segments; PNG's `eXIf`, `tEXt`, `zTXt`, `iTXt` and `tIME` chunks; bytes after
/// the end of the image. Everything the decoder reads (JPEG's tables, frame and scan headers, entropy-coded data,
/// JFIF's APP0, the ICC profile's APP2, Adobe's APP14; PNG's other chunks, their CRCs) is kept byte for byte, so the
/// decoded pixels are the same. Pure and bounded: every step moves forward, and hostile bytes give a `Fault`, never
/// a trap.
package enum PictureMetadata {
    /// A picture format whose metadata can be stripped.
    package enum Format: String, Sendable, Codable {
        case jpeg, png
    }

    /// A kind of metadata segment (JPEG) or chunk (PNG).
    package enum Kind: String, Sendable, Codable, CaseIterable, Comparable {
        /// JPEG APP1 `Exif`, PNG `eXIf`: GPS, the camera's serial, the artist, dates, a thumbnail.
        case exif
        /// Adobe XMP: JPEG APP1 `http://ns.adobe.com/xap/1.0/` (and its extension), PNG `iTXt` `XML:com.adobe.xmp`.
        case xmp
        /// JPEG APP13 (Photoshop's IPTC records: names, places, captions).
        case iptc
        /// JPEG COM.
        case comment
        /// Another JPEG APPn segment (MPF, FlashPix, a maker's own).
        case application
        /// PNG `tEXt`, `zTXt`, `iTXt` (other than XMP).
        case text
        /// PNG `tIME`: when the picture was last changed.
        case time
        /// Bytes after the end of the image (JPEG EOI, PNG IEND): no decoder reads them.
        case trailer

        /// Its name for people: `EXIF`, `XMP`, `IPTC`, `comment`, `application data`, `text`, `time`, `trailing data`.
        package var name: String {
            switch self {
            case .exif, .xmp, .iptc: return rawValue.uppercased()
            case .application: return "application data"
            case .trailer: return "trailing data"
            default: return rawValue
            }
        }

        /// Kinds in their declared order.
        package static func < (a: Kind, b: Kind) -> Bool {
            (allCases.firstIndex(of: a) ?? 0) < (allCases.firstIndex(of: b) ?? 0)
        }
    }

    /// Why a picture cannot be stripped.
    package enum Fault: String, Error, Sendable, Codable, Equatable {
        /// Neither JPEG nor PNG (GIF, BMP, anything else).
        case unknownFormat
        /// A segment or chunk runs past the end of the bytes.
        case truncated
        /// The bytes break the format's structure (a JPEG marker where none can be, a PNG chunk past 2³¹ bytes).
        case malformed
    }

    /// The bytes of one kind removed.
    package struct Removed: Sendable, Codable, Equatable {
        package var kind: Kind
        package var bytes: Int
        /// `bytes` of `kind`.
        package init(kind: Kind, bytes: Int) { self.kind = kind; self.bytes = bytes }
    }

    /// What a read of a picture found: its format and the metadata a strip removes (empty: none), or why it cannot.
    package enum Scan: Sendable, Codable, Equatable {
        case readable(Format, removes: [Removed])
        case unreadable(Fault)
    }

    /// A picture stripped: the bytes kept and what was removed, by kind (in `Kind` order).
    package struct Stripped: Sendable, Equatable {
        package var format: Format
        package var bytes: [UInt8]
        package var removed: [Removed]
        /// The read that gave it.
        package var scan: Scan { .readable(format, removes: removed) }
    }

    /// `picture` without its metadata, or why it cannot be read.
    package static func strip(_ picture: [UInt8]) -> Result<Stripped, Fault> {
        var cut = Cut(source: picture)
        let format: Format
        if picture.starts(with: [0xFF, 0xD8, 0xFF]) {
            format = .jpeg
            if let fault = cut.jpeg() { return .failure(fault) }
        } else if picture.starts(with: pngSignature) {
            format = .png
            if let fault = cut.png() { return .failure(fault) }
        } else {
            return .failure(.unknownFormat)
        }
        let removed = cut.removed.sorted { $0.key < $1.key }.map { Removed(kind: $0.key, bytes: $0.value) }
        return .success(Stripped(format: format, bytes: cut.kept, removed: removed))
    }

    /// What `strip` would find in `picture`.
    package static func scan(_ picture: [UInt8]) -> Scan {
        switch strip(picture) {
        case .success(let s): return s.scan
        case .failure(let f): return .unreadable(f)
        }
    }

    /// `EXIF 312 bytes, XMP 131 bytes`.
    package static func describe(_ removed: [Removed]) -> String {
        removed.map { "\($0.kind.name) \($0.bytes) byte\($0.bytes == 1 ? "" : "s")" }.joined(separator: ", ")
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
}
