import Testing
import VidorientAudit
import VidorientCore
import VidorientIO

@Suite struct ShardTests {
    @Test func parsesKOverN() {
        #expect(Shard("1/3") != nil)
        #expect(Shard("3/3") != nil)
        for bad in ["0/3", "4/3", "1/0", "a/b", "1", "1/2/3", ""] { #expect(Shard(bad) == nil, "\(bad)") }
    }

    @Test func everyPathLandsInExactlyOneShard() {
        let paths = (0..<3000).map { "/library/\($0 % 7)/clip-\($0).mov" }
        for count in [1, 2, 3, 7] {
            let shards = (1...count).map { Shard("\($0)/\(count)")! }
            for path in paths { #expect(shards.filter { $0.contains(path) }.count == 1) }
            // And the split is not lopsided: each shard gets a fair share.
            let sizes = shards.map { shard in paths.filter(shard.contains).count }
            #expect(sizes.allSatisfy { abs($0 - paths.count / count) < paths.count / count / 5 + 10 }, "\(sizes)")
        }
    }

    @Test func hashIsFNV1a() {
        // Published FNV-1a 64 test vectors: the shard of a path must never change between releases.
        #expect(Shard.hash("") == 0xcbf2_9ce4_8422_2325)
        #expect(Shard.hash("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(Shard.hash("foobar") == 0x8594_4171_f739_67e8)
    }
}

@Suite struct ShardParseTests {
    @Test func aRefusalSaysTheForm() throws {
        #expect(try Shard.parse("2/5") == Shard("2/5"))
        for bad in ["0/3", "4/3", "1/0", "a/b", "1", "1/2/3", "", "/3", "1/"] {
            #expect(throws: ValueError("must be K/N with 1 <= K <= N"), "\(bad)") { try Shard.parse(bad) }
        }
    }
}
