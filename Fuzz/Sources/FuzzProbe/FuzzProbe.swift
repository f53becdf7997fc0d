// libFuzzer target: arbitrary bytes as a media file for MediaFileProbe.probe (libavformat open + find_stream_info).
// Throwing is fine; a crash, a hang (libFuzzer -timeout) or a leak is a finding. The probe opens through the
// library's one guarded path (cff_input_open: the file by descriptor, a demuxer whitelist, every nested open
// refused), so this also checks the guard: an input that opens must have been read by an allowed demuxer.
import CFuzzerDriver
import Foundation
import MediaExport

/// One fixed file per process in tmpfs (the probe takes a path and checks it is a regular file).
private let inputPath = "/dev/shm/mediaexport-fuzz-probe-\(getpid()).bin"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let fd = open(inputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { fatalError("cannot create \(inputPath): \(String(cString: strerror(errno)))") }
    var written = 0
    while written < size {
        let n = write(fd, data + written, size - written)
        if n <= 0 { fatalError("short write to \(inputPath)") }
        written += n
    }
    close(fd)
    do {
        let info = try MediaFileProbe.probe(path: inputPath)
        // The whitelist is what keeps playlists and lists (hls, concat, image2 ...) from opening what they name.
        if !MediaFileProbe.isAllowedContainer(info.container) {
            fatalError("opened by a demuxer that is not on the whitelist: \(info.container)")
        }
        // Encode the result as the CLI's `probe --json` would: every field must be representable
        // (a NaN or infinite Double makes JSONEncoder throw, which would break `probe --json` on that file).
        do { _ = try JSONEncoder().encode(info) } catch {
            fatalError("MediaInfo is not JSON-encodable: \(error)\n\(info)")
        }
    } catch {
        _ = "\(error)"
    }
    unlink(inputPath)  // per input: libFuzzer exit()s without returning in some modes (file runs, -fork children)
    return 0
}

@main
enum FuzzProbeMain {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { fuzz($0!, $1) })
    }
}
