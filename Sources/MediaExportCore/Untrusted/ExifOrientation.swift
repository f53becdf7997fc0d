extension PictureMetadata {
    /// EXIF's Orientation (TIFF tag 0x0112), the one EXIF field that changes how a picture shows: a stripped JPEG keeps
    /// it in an EXIF segment of its own holding nothing else, so a portrait photo stays upright where a viewer reads it.
    enum ExifOrientation {
        /// The orientation (2…8) an APP1 payload (`Exif\0\0` and a TIFF structure) gives its picture; nil when it says
        /// none, says 1 (as stored), or cannot be read.
        static func value(in payload: ArraySlice<UInt8>) -> UInt8? {
            let tiff = Array(payload.dropFirst(6))
            guard tiff.count >= 8 else { return nil }
            let little: Bool
            switch (tiff[0], tiff[1]) {
            case (0x49, 0x49): little = true
            case (0x4D, 0x4D): little = false
            default: return nil
            }
            func number(_ at: Int, _ count: Int) -> Int? {
                guard at >= 0, at + count <= tiff.count else { return nil }
                let bytes = tiff[at..<at + count]
                return (little ? bytes.reversed() : Array(bytes)).reduce(0) { $0 << 8 | Int($1) }
            }
            guard number(2, 2) == 42, let ifd = number(4, 4), let entries = number(ifd, 2) else { return nil }
            for k in 0..<min(entries, (tiff.count - ifd) / 12) {
                let entry = ifd + 2 + 12 * k
                guard number(entry, 2) == 0x0112, number(entry + 2, 2) == 3, let value = number(entry + 8, 2) else { continue }
                return (2...8).contains(value) ? UInt8(value) : nil
            }
            return nil
        }

        /// The whole APP1 segment (marker, length, payload) holding only `value`: `Exif\0\0`, a big-endian TIFF
        /// header, IFD0 with the one Orientation entry and no next IFD.
        static func segment(_ value: UInt8) -> [UInt8] {
            let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + [0x4D, 0x4D, 0, 42, 0, 0, 0, 8]
                + [0, 1] + [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, value, 0, 0] + [0, 0, 0, 0]
            return [0xFF, 0xE1, 0, UInt8(payload.count + 2)] + payload
        }

        /// True when an APP1 payload is exactly what `segment` writes: an orientation and nothing else.
        static func isOrientationOnly(_ payload: ArraySlice<UInt8>) -> Bool {
            guard let value = value(in: payload) else { return false }
            return Array(segment(value).dropFirst(4)) == Array(payload)
        }
    }
}
