import Foundation
import Testing
@testable import MediaExportCore

// glibc's own answers, called by their real symbols: `dirname` (libgen.h) and the POSIX `basename`, which glibc
// exports as `__xpg_basename` (string.h's `basename` is the GNU one, with other rules for trailing slashes).
@_silgen_name("dirname") private func libcDirname(_ path: UnsafeMutablePointer<CChar>?) -> UnsafeMutablePointer<CChar>?
@_silgen_name("__xpg_basename") private func libcBasename(_ path: UnsafeMutablePointer<CChar>?) -> UnsafeMutablePointer<CChar>?

/// `PathName` against POSIX `dirname(3)`/`basename(3)` as glibc computes them, on paths as bytes: one-letter
/// names (NSString's `deletingLastPathComponent` traps on them), `.`, `..`, runs of slashes, names of up to 255
/// bytes and bytes that are not UTF-8.
@Suite struct PathNameTests {
    /// A path given as bytes, shown as the lossless string's display form in the test's name.
    struct Bytes: Sendable, CustomTestStringConvertible {
        let bytes: [UInt8]
        var path: String { FileName.decode(bytes) }
        var testDescription: String { "\"\(FileName.clip(FileName.display(path), limit: 40))\"" }
    }

    static let written: [String] = ["", "a", "x", ".", "..", "/", "//", "///", "a/", "a//", "/a", "//a", "///a", "/a/",
                                   "a/b", "a/b/", "a//b", "a//b//", "./a", "../a", "a/..", "a/.", "/..", ".hidden",
                                   "x.", "a.b.c", "dir.d/file", "dir.d/", "/tmp/o", "up/x", "é/ü.mov"]

    /// Fixed cases, raw bytes, and 300 pseudo-random paths of 1…255 bytes over `/`, `.`, letters, UTF-8 and raw bytes.
    static let paths: [Bytes] = {
        var all = written.map { Bytes(bytes: Array($0.utf8)) }
        all.append(Bytes(bytes: [0x63, 0x61, 0x66, 0xE9, 0x2E, 0x6D, 0x70, 0x34]))          // caf\xE9.mp4
        all.append(Bytes(bytes: [0x2F, 0xFF, 0x2F, 0x80, 0x2E, 0xC3]))                       // /\xFF/\x80.\xC3
        all.append(Bytes(bytes: Array(repeating: 0x61, count: 251) + Array(".mov".utf8)))    // a 255-byte name
        all.append(Bytes(bytes: Array("/u/".utf8) + Array(repeating: 0xE9, count: 255)))
        let alphabet: [[UInt8]] = [[0x2F], [0x2F], [0x2E], [0x61], [0x62], [0xC3, 0xA9], [0xE9], [0xFF], [0x80], [0x20]]
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Int(seed >> 33) }
        for _ in 0..<300 {
            let length = 1 + next() % 255
            var bytes: [UInt8] = []
            while bytes.count < length { bytes += alphabet[next() % alphabet.count] }
            all.append(Bytes(bytes: Array(bytes.prefix(length))))
        }
        return all
    }()

    static func libc(_ bytes: [UInt8], _ call: (UnsafeMutablePointer<CChar>?) -> UnsafeMutablePointer<CChar>?) -> [UInt8] {
        var buffer = bytes.map { CChar(bitPattern: $0) } + [0]
        return buffer.withUnsafeMutableBufferPointer { b in
            guard let result = call(b.baseAddress) else { return [] }
            return Array(UnsafeBufferPointer(start: UnsafeRawPointer(result).assumingMemoryBound(to: UInt8.self), count: strlen(result)))
        }
    }

    @Test("directory is dirname(3)", arguments: paths)
    func directoryIsDirname(_ p: Bytes) {
        #expect(FileName.bytes(PathName.directory(p.path)) == Self.libc(p.bytes, libcDirname))
    }

    @Test("lastComponent is POSIX basename(3)", arguments: paths)
    func lastComponentIsBasename(_ p: Bytes) {
        #expect(FileName.bytes(PathName.lastComponent(p.path)) == Self.libc(p.bytes, libcBasename))
    }

    @Test("the extension is the name's last dotted part, and deleting it leaves the rest", arguments: paths)
    func extensionAndDeleting(_ p: Bytes) {
        let ext = PathName.pathExtension(p.path), stem = PathName.deletingExtension(p.path)
        let name = p.bytes.split(separator: 0x2F, omittingEmptySubsequences: false).last.map(Array.init) ?? []
        if ext.isEmpty {
            #expect(stem == p.path)
            let dot = name.lastIndex(of: 0x2E)
            #expect(dot == nil || dot == 0 || dot == name.count - 1)
        } else {
            #expect(FileName.bytes(stem) + [0x2E] + FileName.bytes(ext) == p.bytes)
            #expect(!FileName.bytes(ext).contains(0x2E) && !FileName.bytes(ext).contains(0x2F))
            #expect(!FileName.bytes(PathName.lastComponent(stem)).isEmpty)
        }
    }

    @Test("a name joined to a folder is its last component, and the folder its directory", arguments: paths)
    func joinRoundTrips(_ p: Bytes) {
        let folder = p.path
        for name in ["o", "x.mp4", FileName.decode([0xE9])] {
            let joined = PathName.join(folder, name)
            #expect(PathName.lastComponent(joined) == name)
            if !folder.isEmpty && (!folder.hasSuffix("/") || folder == "/" || folder == "//") {
                #expect(PathName.directory(joined) == folder)
            }
            #expect(PathName.replacingName(of: joined, with: "y") == PathName.join(folder, "y"))
        }
    }

    @Test func nothingIsNormalisedAway() {
        #expect(PathName.join("a", "../b") == "a/../b")
        #expect(PathName.join("a/", "b") == "a/b")
        #expect(PathName.join("", "b") == "b")
        #expect(PathName.directory("a/../b") == "a/..")
        #expect(PathName.lastComponent("a/..") == "..")
        #expect(PathName.replacingName(of: "x.mov", with: "x.mp4") == "x.mp4")
        #expect(PathName.replacingName(of: "s/x.mov", with: "x.mp4") == "s/x.mp4")
        #expect(PathName.pathExtension(".profile") == "" && PathName.pathExtension("a.") == "" && PathName.pathExtension("a.b/") == "")
        #expect(PathName.deletingExtension("a/b.tar.gz") == "a/b.tar")
    }

    @Test("paths shown to people are normalised lexically, symlinks not resolved")
    func normalisedForPeople() throws {
        let cases = ["out/../clips/trunc.mov": "clips/trunc.mov", "/a//b/./c/": "/a/b/c", "./x": "x", "a/..": ".", "../../a/../b": "../../b",
                     "/../x": "/x", "/": "/", "": "", "a/b/../../..": "..", "//x": "/x"]
        for (path, shown) in cases { #expect(PathName.normalized(path) == shown, "\(path)") }
        #expect(FileName.displayPath("o/../a\u{1B}.mov") == FileName.display("a\u{1B}.mov"))
        // A name that is not UTF-8 keeps its bytes.
        let raw = FileName.decode(Array("d/./caf".utf8) + [0xE9] + Array(".mov".utf8))
        #expect(FileName.bytes(PathName.normalized(raw)) == Array("d/caf".utf8) + [0xE9] + Array(".mov".utf8))
        // A symlink is not resolved: `link/..` is the folder `link` is in, whatever `link` points to.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pathname-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("far/away"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("link").path, withDestinationPath: dir.appendingPathComponent("far/away").path)
        #expect(PathName.normalized(dir.path + "/link/..") == dir.path)
    }

    @Test func timesInJSONAreRoundedToTheMillisecondByKey() throws {
        let value: JSONValue = .object(["time": .number(0.2548999999999999), "fraction": .number(0.016666666666666666),
                                        "frameDuration": .number(1.0 / 30), "bytes": .number(123456789),
                                        "points": .array([.object(["at": .number(1.23456)])]), "timeRange": .object(["start": .number(0.1 + 0.2)])])
        let rounded = JSONTime.rounded(value)
        let text = String(decoding: try JSONTime.encode(rounded), as: UTF8.self)
        #expect(text.contains("\"time\":0.255") && text.contains("\"at\":1.235") && text.contains("\"start\":0.3"), "\(text)")
        #expect(text.contains("\"fraction\":0.016666666666666666") && text.contains("\"bytes\":123456789"), "not a time: kept")
        #expect(text.contains("\"frameDuration\":0.03333"), "a frame's period keeps its precision")
        #expect(JSONTime.iso8601(0) == "1970-01-01T00:00:00Z" && JSONTime.iso8601(1_795_469_719.9) == "2026-11-23T21:35:19Z")
    }
}
