import Foundation
import MediaExportCore

/// Escaping for XML and HTML text and attribute values (JUnit and the HTML report), so any CI parses the file:
/// what XML 1.0 forbids (C0 controls, U+FFFE, U+FFFF; tab shown too, newline kept) and what a page should not obey
/// (C1 controls, bidirectional controls) is shown as `TerminalText.escaped` shows it (`\u{1B}`), a raw byte of a name
/// as `\xFF`.
enum Markup {
    /// `s` shown visibly as above, line by line (newlines kept), then `&`, `<`, `>`, `"` and `'` as character references.
    static func escape(_ s: String) -> String {
        s.split(separator: "\n", omittingEmptySubsequences: false).map { visible(String($0)) }.joined(separator: "\n")
            .replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
    }

    /// One line with its controls, raw bytes and the noncharacters U+FFFE and U+FFFF as escapes.
    static func visible(_ line: String) -> String {
        TerminalText.escaped(line).replacingOccurrences(of: "\u{FFFE}", with: "\\u{FFFE}")
            .replacingOccurrences(of: "\u{FFFF}", with: "\\u{FFFF}")
    }
}
