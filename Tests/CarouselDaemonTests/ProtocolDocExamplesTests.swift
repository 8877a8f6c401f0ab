import CarouselProtocol
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// (g) Every example exchange in docs/PROTOCOL.md, replayed against a real daemon started with
/// the document's own `example-config` block (STYLE.md: examples are tests).
@Suite(.serialized) struct ProtocolDocExamplesTests {
    struct Step {
        var connection: Int
        var fromClient: Bool
        var text: String
        var line: Int
    }

    struct Example {
        var title: String
        var line: Int
        var ignore: Set<String> = ["seq", "time_ns", "uptime_s"]
        /// Numbers whose values vary from run to run but whose order the example shows: equal,
        /// smaller or larger in the document exactly as in the daemon's output. `seq` always is:
        /// an example's STATEs repeat or advance it as the daemon does.
        var ordered: Set<String> = ["seq"]
        var config: [String: [String: String]] = [:]
        var uids: [Int: UInt32] = [:]
        var steps: [Step] = []
    }

    static let docPath = TestPaths.packageRoot + "/docs/PROTOCOL.md"

    /// Parses the `ini example-config` block and every `protocol` block.
    static func parse(_ text: String) -> (config: [String: [String: String]], examples: [Example]) {
        var config: [String: [String: String]] = [:]
        var examples: [Example] = []
        var title = ""
        var block: String?
        var section = ""
        var current = Example(title: "", line: 0)
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            if block == nil {
                if line.hasPrefix("### ") { title = String(line.dropFirst(4)) }
                if line == "```ini example-config" { block = "config" }
                if line == "```protocol" { block = "protocol"; current = Example(title: title, line: n + 1) }
                continue
            }
            if line == "```" {
                if block == "protocol" { examples.append(current) }
                block = nil
                continue
            }
            if block == "config" {
                if line.hasPrefix("[") { section = String(line.dropFirst().dropLast()) }
                else if let eq = line.firstIndex(of: "=") {
                    config[section, default: [:]][trim(line[..<eq])] = trim(line[line.index(after: eq)...])
                }
                continue
            }
            if line.hasPrefix("# ordered:") {
                for key in line.dropFirst(10).split(separator: ",") { current.ordered.insert(trim(key[...])) }
            } else if line.hasPrefix("# ignore:") {
                for key in line.dropFirst(9).split(separator: ",") { current.ignore.insert(trim(key[...])) }
            } else if line.hasPrefix("# config:"), let close = line.firstIndex(of: "]"), let eq = line.firstIndex(of: "=") {
                let s = trim(line[line.index(after: line.firstIndex(of: "[") ?? line.startIndex)..<close])
                current.config[s, default: [:]][trim(line[line.index(after: close)..<eq])] = trim(line[line.index(after: eq)...])
            } else if line.hasPrefix("# uid "), let colon = line.firstIndex(of: ":") {
                if let conn = Int(trim(line[line.index(line.startIndex, offsetBy: 6)..<colon])),
                   let uid = UInt32(trim(line[line.index(after: colon)...])) { current.uids[conn] = uid }
            } else if let colon = line.firstIndex(of: ":"), let who = line.first, who == "C" || who == "S" {
                let conn = Int(line[line.index(after: line.startIndex)..<colon]) ?? 1
                current.steps.append(Step(connection: conn, fromClient: who == "C",
                                          text: String(line[line.index(after: colon)...].dropFirst()), line: n + 1))
            }
        }
        return (config, examples)
    }

    static func trim(_ s: Substring) -> String {
        String(s.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }

    /// Structural equality, skipping `ignore` keys anywhere; numbers within 1e-9.
    static func matches(_ actual: WireJSON, _ expected: WireJSON, ignore: Set<String>) -> Bool {
        switch (actual, expected) {
        case let (.object(a), .object(e)):
            let ak = Set(a.map(\.0)).subtracting(ignore), ek = Set(e.map(\.0)).subtracting(ignore)
            guard ak == ek else { return false }
            return ek.allSatisfy { k in
                guard let av = actual[k], let ev = expected[k] else { return false }
                return matches(av, ev, ignore: ignore)
            }
        case let (.array(a), .array(e)):
            return a.count == e.count && zip(a, e).allSatisfy { matches($0, $1, ignore: ignore) }
        case let (.number(a), .number(e)):
            return abs(a - e) <= 1e-9 * max(1, abs(e))
        default:
            return actual == expected
        }
    }

    /// The text of the fenced block that opens with "```" + `info`, nil when there is none.
    static func block(_ text: String, info: String) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let open = lines.firstIndex(where: { $0 == "```" + info }),
              let close = lines[(open + 1)...].firstIndex(where: { $0 == "```" }) else { return nil }
        return lines[(open + 1)..<close].map { $0 + "\n" }.joined()
    }

    /// "A first client": the document's Python program, run with python3 against the daemon of
    /// the examples, prints the document's lines, those before the other connection's
    /// `scroll_to` and then those after it. The sensor's messages depend on the machine: for the
    /// `sensor` lines only the status is compared.
    @Test func firstClientPrintsWhatTheDocumentShows() throws {
        let text = try #require(readTextFile(Self.docPath))
        let program = try #require(Self.block(text, info: "python first-client"), "PROTOCOL.md: no python first-client block")
        let output = try #require(Self.block(text, info: "text first-client-output"), "PROTOCOL.md: no first-client-output block")
        let expected = output.split(separator: "\n").map(String.init)
        let beforeScroll = try #require(expected.firstIndex(of: "  card 2 at [-72.5, 100], alpha 0.792, z -260"),
                                        "the output shows no card 2 after the scroll")
        let daemon = try E2EDaemon("doc-first-client", overrides: Self.parse(text).config)
        let script = TestTemp.path("first-client.py")
        try TestTemp.write(program, to: script)
        let python = try DaemonProcess(executable: "/usr/bin/python3", arguments: ["-u", script, daemon.socketPath],
                                       logPath: TestTemp.path("first-client.log"))
        defer {
            python.signal(SIGKILL)
            _ = try? python.wait()
        }
        // Whole lines only: unbuffered, print writes its arguments one by one.
        func lines(_ log: String) -> [String] {
            Array(log.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init))
        }
        func printed(_ count: Int) throws -> [String] {
            try lines(python.waitForLog("\(count) lines of the first client", until: { lines($0).count >= count }))
        }
        func same(_ actual: String, _ expected: String) -> Bool {
            guard expected.hasPrefix("sensor ") else { return actual == expected }
            return actual.split(separator: " ").prefix(2) == expected.split(separator: " ").prefix(2)
        }
        let first = try printed(beforeScroll)
        #expect(first.count == beforeScroll, "more lines before the scroll than the document shows: \(first)")
        for (a, e) in zip(first, expected) { #expect(same(a, e), "printed \(a) | PROTOCOL.md shows \(e)") }
        let control = try daemon.client()
        try control.send(#"{"cmd":"scroll_to","index":3,"animated":false}"#)
        #expect(try control.readLine() == #"{"class":"ACK","cmd":"scroll_to"}"#)
        let all = try printed(expected.count)
        #expect(all.count == expected.count, "printed \(all)")
        for (a, e) in zip(all, expected).dropFirst(beforeScroll) { #expect(same(a, e), "printed \(a) | PROTOCOL.md shows \(e)") }
        #expect(try daemon.stop() == 0)
    }

    @Test func documentHasExamplesForEveryMessageAndCommand() throws {
        let text = try #require(readTextFile(Self.docPath))
        let (_, examples) = Self.parse(text)
        let all = examples.flatMap(\.steps)
        for cls in ["VERSION", "WATCH", "LAYOUT", "STATE", "INDEX", "SENSOR", "ORIENTATION", "STATUS", "SENSORS", "SAMPLE", "ACK", "ERROR"] {
            #expect(all.contains { !$0.fromClient && $0.text.contains("\"class\":\"\(cls)\"") }, "no example of \(cls)")
        }
        for cmd in Request.commandNames {
            #expect(all.contains { $0.fromClient && $0.text.contains("\"cmd\":\"\(cmd)\"") }, "no example of \(cmd)")
        }
        for code in ProtocolErrorCode.allCases {
            #expect(all.contains { !$0.fromClient && $0.text.contains("\"code\":\"\(code.rawValue)\"") }, "no example of \(code.rawValue)")
        }
    }

    /// One `seq` is one snapshot (PROTOCOL.md, STATE): two STATE lines of an example with the same
    /// `seq` carry the same values, `time_ns` included (`items` aside, which only a watch with items
    /// gets), so a STATE that shows a change shows a new `seq`.
    @Test func statesWithOneSeqAreOneSnapshot() throws {
        let text = try #require(readTextFile(Self.docPath))
        for example in Self.parse(text).examples {
            var first: [Double: (line: Int, state: WireJSON)] = [:]
            for step in example.steps where !step.fromClient && step.text.contains("\"class\":\"STATE\"") {
                let state = try WireJSONParser.parse(step.text)
                let seq = try #require(state["seq"]?.doubleValue, "PROTOCOL.md:\(step.line): a STATE without seq")
                guard let earlier = first[seq] else {
                    first[seq] = (step.line, state)
                    continue
                }
                #expect(Self.matches(state, earlier.state, ignore: ["items"]),
                        "PROTOCOL.md:\(step.line) (\(example.title)): seq \(Int(seq)) as on line \(earlier.line), but another snapshot")
            }
        }
    }

    @Test func everyExampleReplaysAgainstTheDaemon() throws {
        let text = try #require(readTextFile(Self.docPath))
        let (baseConfig, examples) = Self.parse(text)
        #expect(examples.count >= 10)
        for example in examples {
            var overrides = baseConfig
            for (section, keys) in example.config {
                for (k, v) in keys {
                    overrides[section, default: [:]][k] = k == "replay_file" && !v.hasPrefix("/") ? TestPaths.packageRoot + "/" + v : v
                }
            }
            if !example.uids.isEmpty,
               !TestPrivileges.requireRoot("replays '\(example.title)', which connects as uid \(example.uids.values.sorted())") {
                continue
            }
            let daemon = try E2EDaemon("doc", overrides: overrides)
            var clients: [Int: SocketClient] = [:]
            var seen: [String: [(expected: Double, actual: Double)]] = [:]
            for step in example.steps {
                let client: SocketClient
                if let c = clients[step.connection] {
                    client = c
                } else if let uid = example.uids[step.connection] {
                    client = try SocketClient(path: daemon.socketPath, uid: uid, gid: uid)
                    clients[step.connection] = client
                } else {
                    client = try SocketClient(path: daemon.socketPath)
                    clients[step.connection] = client
                }
                if step.fromClient {
                    if step.text.hasPrefix("<"), step.text.hasSuffix(" bytes>"), let n = Int(step.text.dropFirst().dropLast(7)) {
                        try client.sendRaw([UInt8](repeating: 0x20, count: n) + [0x0A])
                    } else {
                        try client.send(step.text)
                    }
                    continue
                }
                let actual = try client.readLine() ?? "<connection closed>"
                let expected = try? WireJSONParser.parse(step.text)
                let ok = (try? WireJSONParser.parse(actual)).map { a in expected.map { Self.matches(a, $0, ignore: example.ignore.union(example.ordered)) } ?? false } ?? false
                #expect(ok, "PROTOCOL.md:\(step.line) (\(example.title)): expected \(step.text) | actual: \(actual)")
                let parsed = try? WireJSONParser.parse(actual)
                for key in example.ordered {
                    guard let e = expected?[key]?.doubleValue else { continue }
                    guard let a = parsed?[key]?.doubleValue else {
                        Issue.record("PROTOCOL.md:\(step.line): no '\(key)' in \(actual)")
                        continue
                    }
                    func order(_ x: Double, _ y: Double) -> Int { x < y ? -1 : (x > y ? 1 : 0) }
                    for earlier in seen[key, default: []] where order(e, earlier.expected) != order(a, earlier.actual) {
                        let why = "PROTOCOL.md:\(step.line) (\(example.title)): '\(key)' \(e) after \(earlier.expected) in the "
                            + "document, but \(a) after \(earlier.actual) from the daemon"
                        Issue.record(Comment(rawValue: why))
                    }
                    seen[key, default: []].append((e, a))
                }
            }
            #expect(try daemon.stop() == 0)
        }
    }
}
