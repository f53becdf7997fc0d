// libFuzzer target: arbitrary bytes as an Apple .AAE, through AdjustmentInfo.parse: the 1 MB bound, the non-recursive
// XML nesting scan (XMLPlistStructure), then Foundation's XML plist parser (or our binary plist reader). Each input is
// read twice: as it is, and placed inside a well-formed .AAE dictionary, so that mutations reach the parser's
// element handling instead of dying at the first byte. A crash (a stack overflow above all: 10 000 nested arrays
// did that before the scan), a trap, a hang or a leak is a finding; so is an error message that echoes an input's
// text at length, or an error that is not ExportError.invalidSidecar.
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

private func check(_ bytes: Data) {
    do {
        let info = try AdjustmentInfo.parse(bytes, path: "fuzz.aae")
        // The strings are the uploader's: they must come back cut.
        for s in [info.formatIdentifier, info.formatVersion].compactMap({ $0 }) where s.count > 260 {
            fatalError("AdjustmentInfo kept \(s.count) characters of the file's text")
        }
        _ = try JSONEncoder().encode(info)
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
