import Foundation
import MediaExport

extension MediaExportCommand {
    /// The command line as given, without argv[0]. File names are bytes: Swift's `CommandLine.arguments`
    /// repairs arguments that are not UTF-8 (a Latin-1 `caf\xE9.mp4` would become `caf\u{FFFD}.mp4`, a file that
    /// does not exist), so the raw `argv` is decoded losslessly with `FileName` instead; the library turns each
    /// path back into its exact bytes.
    static func losslessArguments() -> [String] {
        let argv = CommandLine.unsafeArgv
        return (1..<Int(CommandLine.argc)).compactMap { argv[$0].map { FileName.decode(cString: $0) } }
    }
}
