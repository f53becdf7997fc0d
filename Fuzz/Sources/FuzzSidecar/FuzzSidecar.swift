// libFuzzer target: arbitrary bytes as an edit sidecar (JSON) and as an Apple .AAE property list.
// Errors are expected (invalid input must throw ExportError.invalidSidecar); crashes, hangs and leaks are findings.
import CFuzzerDriver
import Foundation
import MediaExport

/// One file per process for AdjustmentInfo.load, which reads from a path (tmpfs keeps it cheap).
private let aaePath = "/dev/shm/mediaexport-fuzz-sidecar-\(getpid()).aae"
/// FUZZ_SIDECAR_AAE=0 fuzzes the JSON sidecar alone (e.g. while a known .AAE crash is unfixed: findings/aae-*).
private let fuzzAAE = ProcessInfo.processInfo.environment["FUZZ_SIDECAR_AAE"] != "0"

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
        _ = "\(error)"  // error descriptions must be printable too
    }
    // Plist-looking bytes also go to the .AAE reader: binary plists ("bplist…") take MediaExport's own
    // BinaryPropertyList reader, XML ones ("<…") Foundation's PropertyListSerialization. Not every input: that
    // Foundation parser leaks on every input it rejects (Fuzz/lsan.supp), ~1 GB in 4 minutes if fed everything.
    let plistLike = bytes.starts(with: Array("bplist".utf8))
        || bytes.prefix(64).first(where: { ![0x20, 0x09, 0x0a, 0x0d, 0xef, 0xbb, 0xbf].contains($0) }) == UInt8(ascii: "<")
    if fuzzAAE, plistLike, FileManager.default.createFile(atPath: aaePath, contents: bytes) {
        do { _ = try AdjustmentInfo.load(path: aaePath) } catch { _ = "\(error)" }
        unlink(aaePath)  // per input: libFuzzer exit()s without returning in some modes (file runs, -fork children)
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
