// libFuzzer target: arbitrary bytes as an edit sidecar (JSON), as a preset file (JSON) and as an Apple .AAE
// property list. Errors are expected (invalid input must throw ExportError.invalidSidecar / invalidPreset); crashes,
// hangs, leaks and error messages that echo the input at length are findings. FuzzAdjustment fuzzes the .AAE alone.
import CFuzzerDriver
import Foundation
import MediaExport

/// FUZZ_SIDECAR_AAE=0 fuzzes the JSON readers alone (e.g. while a known .AAE crash is unfixed: findings/aae-*).
private let fuzzAAE = ProcessInfo.processInfo.environment["FUZZ_SIDECAR_AAE"] != "0"

/// An error's message must stay one short line whatever the input (a huge key is cut).
private func checkMessage(_ error: Error) {
    let message = "\(error)"
    if message.utf8.count > 2048 { fatalError("error message of \(message.utf8.count) bytes: \(message.prefix(300))…") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    do {
        let sidecar = try EditSidecar.parse(bytes, path: "fuzz.edit.json")
        // Exercise the public derived properties and the Codable round trip on every accepted value.
        _ = sidecar.isEmpty
        _ = sidecar.needsTranscode
        let again = try JSONEncoder().encode(sidecar)
        let reparsed = try EditSidecar.parse(again, path: "fuzz.edit.json")
        if reparsed != sidecar {
            fatalError("EditSidecar round trip changed the value: \(sidecar) -> \(reparsed)")
        }
    } catch {
        checkMessage(error)  // error descriptions must be printable, and short
    }
    do { _ = try PresetCatalog.parse(bytes, path: "fuzz.json") } catch { checkMessage(error) }
    // Plist-looking bytes also go to the .AAE reader: binary plists ("bplist…") take MediaExport's own
    // BinaryPropertyList reader, XML ones ("<…") the nesting scan and then Foundation's PropertyListDecoder.
    let plistLike = bytes.starts(with: Array("bplist".utf8))
        || bytes.prefix(64).first(where: { ![0x20, 0x09, 0x0a, 0x0d, 0xef, 0xbb, 0xbf].contains($0) }) == UInt8(ascii: "<")
    if fuzzAAE, plistLike {
        do { _ = try AdjustmentInfo.parse(bytes, path: "fuzz.aae") } catch { checkMessage(error) }
    }
    return 0
}

@main
enum FuzzSidecarMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzz($0!, $1) })
    }
}
