/// Text for a terminal: what a file, a tag or a message brings with it is shown, never obeyed. A name holding a newline
/// would forge a line of output, an ESC would drive the terminal, and a bidirectional override (U+202E) would make
/// `evil\u{202E}4pm.exe` read as `evilexe.mp4`. Each such scalar is rendered visibly, in the form `FileName.display`
/// already gives names:
/// - C0 and C1 controls and DEL (`\n` is `\u{A}`, ESC is `\u{1B}`, U+0085 is `\u{85}`), and the line and paragraph
///   separators U+2028 and U+2029, as `\u{…}` (hexadecimal, upper case);
/// - the bidirectional controls U+061C, U+200E, U+200F, U+202A–U+202E and U+2066–U+2069 as `\u{…}`;
/// - bytes of a name that are not UTF-8 (the lossless form's escapes, see `FileName`) as `\xE9`.
/// Everything else, every letter and symbol of every script, passes unchanged. JSON output never goes through this:
/// JSON's own escaping keeps the exact text.
package enum TerminalText {
    /// `text` with every control, bidirectional control and raw byte shown as an escape; one line if it was one.
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if FileName.isEscape(scalar) {
                out.append(contentsOf: "\\x\(hex(scalar.value - FileName.escapeBase, width: 2))".unicodeScalars)
            } else if needsEscape(scalar) {
                out.append(contentsOf: "\\u{\(hex(scalar.value, width: 1))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Lines for people: each line of `lines` escaped, then joined with newlines (the only line breaks left).
    package static func lines(_ lines: [String]) -> String { lines.map(escaped).joined(separator: "\n") }

    /// True for a scalar a terminal would act on or reorder rather than show.
    static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: return true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return FileName.isEscape(s)
        }
    }

    private static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
