extension PictureMetadata {
    /// One pass over a picture's bytes: what is kept is appended to `kept`, what is removed counted by kind.
    struct Cut {
        let source: [UInt8]
        var kept: [UInt8] = []
        var removed: [Kind: Int] = [:]
        /// An orientation was kept from an EXIF segment.
        private var oriented = false

        init(source: [UInt8]) {
            self.source = source
            kept.reserveCapacity(source.count)
        }

        /// Keeps `range` of the source, or counts it removed as `kind`.
        private mutating func take(_ range: Range<Int>, removing kind: Kind?) {
            guard !range.isEmpty else { return }
            if let kind { removed[kind, default: 0] += range.count } else { kept += source[range] }
        }

        /// A big-endian number of `count` bytes at `at` (the caller checked the bounds).
        private func number(at: Int, count: Int) -> Int {
            source[at..<at + count].reduce(0) { $0 << 8 | Int($1) }
        }

        // MARK: JPEG

        /// JPEG: SOI, then markers up to EOI; each scan's entropy-coded data is copied whole.
        mutating func jpeg() -> Fault? {
            take(0..<2, removing: nil)
            var p = 2
            while p < source.count {
                guard source[p] == 0xFF else { return .malformed }
                var m = p + 1
                while m < source.count && source[m] == 0xFF { m += 1 }  // fill bytes before a marker
                guard m < source.count else { return .truncated }
                let marker = source[m]
                if marker == 0xD9 {  // EOI: anything after it is no part of the picture
                    take(p..<m + 1, removing: nil)
                    take(m + 1..<source.count, removing: .trailer)
                    return nil
                }
                if marker == 0x01 || (0xD0...0xD7).contains(marker) {  // TEM, RSTn: no length
                    take(p..<m + 1, removing: nil)
                    p = m + 1
                    continue
                }
                guard marker != 0x00, marker != 0xD8 else { return .malformed }
                guard m + 2 < source.count else { return .truncated }
                let length = number(at: m + 1, count: 2)
                guard length >= 2 else { return .malformed }
                let end = m + 1 + length
                guard end <= source.count else { return .truncated }
                segment(p..<end, marker: marker, payload: source[m + 3..<end])
                p = marker == 0xDA ? entropyEnd(from: end) : end
            }
            return nil  // no EOI: the decoder reads what is there; nothing after the last scan to remove
        }

        /// Keeps or removes one JPEG segment; an EXIF segment that orients the picture leaves its orientation behind, in
        /// a segment of its own (`ExifOrientation`), once.
        private mutating func segment(_ range: Range<Int>, marker: UInt8, payload: ArraySlice<UInt8>) {
            let kind = Self.jpegKind(marker, payload: payload)
            guard kind == .exif, !oriented, let orientation = ExifOrientation.value(in: payload) else {
                take(range, removing: kind)
                return
            }
            let kept = ExifOrientation.segment(orientation)
            self.kept += kept
            removed[.exif, default: 0] += max(0, range.count - kept.count)
            oriented = true
        }

        /// Copies a scan's entropy-coded data (where 0xFF is followed by 0x00 or a restart marker) and returns where
        /// the next marker starts (the end of the bytes when none follows).
        private mutating func entropyEnd(from start: Int) -> Int {
            var i = start
            while i + 1 < source.count {
                if source[i] == 0xFF {
                    let next = source[i + 1]
                    if next != 0x00 && !(0xD0...0xD7).contains(next) { break }
                    i += 2
                } else {
                    i += 1
                }
            }
            if i + 1 >= source.count { i = source.count }
            take(start..<i, removing: nil)
            return i
        }

        /// The metadata kind of a JPEG segment, or nil for one the decoder needs (tables, frame and scan headers,
        /// JFIF's APP0, an ICC profile, Adobe's colour transform, the JPEG extensions).
        static func jpegKind(_ marker: UInt8, payload: ArraySlice<UInt8>) -> Kind? {
            func named(_ text: String) -> Bool { payload.starts(with: Array(text.utf8)) }
            switch marker {
            case 0xE0: return named("JFIF\0") || named("JFXX\0") || named("AVI1") ? nil : .application
            case 0xE1:
                if named("Exif\0") { return ExifOrientation.isOrientationOnly(payload) ? nil : .exif }
                return named("http://ns.adobe.com/xap/1.0/") || named("http://ns.adobe.com/xmp/extension/") ? .xmp : .application
            case 0xE2: return named("ICC_PROFILE\0") ? nil : .application
            case 0xED: return .iptc
            case 0xEE: return named("Adobe") ? nil : .application
            case 0xE3...0xEF: return .application
            case 0xFE: return .comment
            default: return nil
            }
        }

        // MARK: PNG

        /// PNG: the signature, then chunks (length, type, data, CRC) up to IEND.
        mutating func png() -> Fault? {
            take(0..<8, removing: nil)
            var p = 8
            while p < source.count {
                guard p + 8 <= source.count else { return .truncated }
                let length = number(at: p, count: 4)
                guard length <= 0x7FFF_FFFF else { return .malformed }
                let end = p + 12 + length
                guard end <= source.count else { return .truncated }
                let type = String(decoding: source[p + 4..<p + 8], as: UTF8.self)
                take(p..<end, removing: Self.pngKind(type, data: source[p + 8..<end - 4]))
                p = end
                if type == "IEND" {
                    take(p..<source.count, removing: .trailer)
                    return nil
                }
            }
            return .truncated  // no IEND
        }

        /// The metadata kind of a PNG chunk, or nil for one kept.
        static func pngKind(_ type: String, data: ArraySlice<UInt8>) -> Kind? {
            switch type {
            case "eXIf": return .exif
            case "tEXt", "zTXt": return .text
            case "iTXt": return data.starts(with: Array("XML:com.adobe.xmp\0".utf8)) ? .xmp : .text
            case "tIME": return .time
            default: return nil
            }
        }
    }
}
