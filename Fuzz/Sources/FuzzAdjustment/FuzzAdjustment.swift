// libFuzzer target: arbitrary bytes as an Apple .AAE, through AdjustmentInfo.parse: the 1 MB bound, the non-recursive
// XML nesting scan (XMLPlistStructure), then Foundation's XML plist parser (or our binary plist reader), then the
// decoding of adjustmentData (our binary plist tree reader, zlib inflation bounded to 4 MB, the JSON scan and parse,
// the typed adjustments). Each input is read three times: as it is; placed inside a well-formed XML .AAE dictionary,
// so that mutations reach the parser's element handling instead of dying at the first byte; and as the
// adjustmentData of a binary .AAE envelope (of com.apple.video.slomo when it starts with "bplist", else of
// com.apple.photo), so that mutations of a slo-mo plist or of a DEFLATE stream reach the decoders directly.
// A crash (a stack overflow above all: 10 000 nested arrays did that before the scan), a trap, a hang or a leak is a
// finding; so is text kept or echoed at length, a decoded value that cannot be encoded as JSON or does not survive
// the round trip, or an error that is not ExportError.invalidSidecar.
import CFuzzerDriver
import Foundation
import MediaExport

/// Arrays, not Data: LeakSanitizer does not see the storage of a global Data (its reference is packed) and
/// reports it as a leak at exit.
private let head = Array("""
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
<key>adjustmentFormatIdentifier</key><string>com.apple.photo</string>
<key>adjustmentFormatVersion</key><string>1.4</string>
<key>adjustmentData</key>

""".utf8)
private let tail = Array("\n</dict>\n</plist>\n".utf8)

/// A binary .AAE envelope (`bplist00`, 1-byte references, 4-byte offsets) of `identifier` whose adjustmentData is
/// `payload`. Built by hand: Foundation's binary writer is not needed, and this costs nothing per input.
private func binaryEnvelope(identifier: String, payload: Data) -> Data {
    func length(_ marker: UInt8, _ n: Int) -> [UInt8] {
        n < 15 ? [marker | UInt8(n)] : [marker | 0x0F, 0x12] + withUnsafeBytes(of: UInt32(n).bigEndian, Array.init)
    }
    let objects: [[UInt8]] = [
        [0xD2, 1, 2, 3, 4],
        length(0x50, 26) + Array("adjustmentFormatIdentifier".utf8),
        length(0x50, 14) + Array("adjustmentData".utf8),
        length(0x50, identifier.utf8.count) + Array(identifier.utf8),
        length(0x40, payload.count) + Array(payload),
    ]
    var body = Array("bplist00".utf8)
    var offsets: [Int] = []
    for o in objects { offsets.append(body.count); body += o }
    let table = body.count
    for o in offsets { body += withUnsafeBytes(of: UInt32(o).bigEndian, Array.init) }
    body += [0, 0, 0, 0, 0, 0, 4, 1]
    for v in [objects.count, 0, table] { body += withUnsafeBytes(of: UInt64(v).bigEndian, Array.init) }
    return Data(body)
}

private func check(_ bytes: Data) {
    do {
        let info = try AdjustmentInfo.parse(bytes, path: "fuzz.aae")
        // The strings are the uploader's: they must come back cut.
        let texts = [info.formatIdentifier, info.formatVersion, info.editor].compactMap { $0 } + info.adjustments.map(\.identifier)
        for s in texts where s.count > 260 {
            fatalError("AdjustmentInfo kept \(s.count) characters of the file's text")
        }
        if let why = info.undecodable, why.utf8.count > 2048 { fatalError("undecodable reason of \(why.utf8.count) bytes") }
        if info.adjustments.count > 1000 { fatalError("\(info.adjustments.count) adjustments kept") }
        // What events and `resources --json` carry: it must encode, and read back the same.
        let json = try JSONEncoder().encode(info)
        let again = try JSONDecoder().decode(AdjustmentInfo.self, from: json)
        if again != info { fatalError("AdjustmentInfo JSON round trip changed the value: \(info) -> \(again)") }
    } catch let error as ExportError {
        guard case .invalidSidecar = error else { fatalError("unexpected error case: \(error)") }
        let message = error.description
        if message.utf8.count > 2048 { fatalError("error message of \(message.utf8.count) bytes") }
    } catch {
        fatalError("not an ExportError: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    check(bytes)
    check(Data(head) + bytes + Data(tail))
    let slomo = bytes.starts(with: Array("bplist".utf8))
    check(binaryEnvelope(identifier: slomo ? "com.apple.video.slomo" : "com.apple.photo", payload: bytes))
    return 0
}

@main
enum FuzzAdjustmentMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzz($0!, $1) })
    }
}
