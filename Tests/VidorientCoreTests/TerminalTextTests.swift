import Testing
import VidorientCore

@Suite struct TerminalTextTests {
    @Test(arguments: [
        ("plain.mp4", "plain.mp4"),
        ("été/日本.mov", "été/日本.mov"),
        ("a\nb.mp4", "a\\nb.mp4"),
        ("\u{1B}[31mred.mp4", "\\x1B[31mred.mp4"),
        ("tab\there\r", "tab\\there\\r"),
        ("nul\u{0}del\u{7F}c1\u{9B}", "nul\\x00del\\x7Fc1\\x9B"),
        (String(pathBytes: [0x63, 0x61, 0x66, 0xE9, 0x0A]), "caf\\xE9\\n"),
    ])
    func controlCharactersAreEscaped(name: String, shown: String) {
        #expect(name.escapingControlCharacters == shown)
    }

    @Test func countsSaySingularForOne() {
        #expect(1.counting("file") == "1 file" && 2.counting("file") == "2 files" && 0.counting("file") == "0 files")
        #expect(1.counting("fix", plural: "fixes") == "1 fix" && 3.counting("fix", plural: "fixes") == "3 fixes")
    }
}
