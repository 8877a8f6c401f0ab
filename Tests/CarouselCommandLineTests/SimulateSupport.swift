#if canImport(Glibc)
import Glibc
#endif
import CarouselProtocol
import Synchronization
import CarouselTestSupport
@testable import CarouselCommandLine

/// The result of one `carouselctl` run.
struct SimulateRun {
    var status: ExitStatus
    var stdout: String
    var stderr: String

    /// The NDJSON frames, parsed.
    var frames: [JSONValue] {
        stdout.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
    }
}

/// A thread-safe text sink for `CommandIO`.
final class TextSink: @unchecked Sendable {
    private var lock = pthread_mutex_t()
    private var text = ""
    init() { pthread_mutex_init(&lock, nil) }
    deinit { pthread_mutex_destroy(&lock) }
    func append(_ s: String) {
        pthread_mutex_lock(&lock)
        text += s
        pthread_mutex_unlock(&lock)
    }
    var value: String {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return text
    }
}

/// Runs `carouselctl` in-process.
func runInProcess(_ arguments: [String]) -> SimulateRun {
    let out = TextSink(), err = TextSink()
    let status = Carouselctl.main(arguments, io: CommandIO(out: { out.append($0) }, err: { err.append($0) }))
    return SimulateRun(status: status, stdout: out.value, stderr: err.value)
}

/// A path under /tmp unique to this process and call.
func uniqueTemporaryPath(_ name: String) -> String {
    let n = nextCounter()
    return "/tmp/carouselctl-simulate-tests-\(getpid())-\(n)-\(name)"
}

private let temporaryCounter = Atomic<Int>(0)
private func nextCounter() -> Int {
    temporaryCounter.wrappingAdd(1, ordering: .relaxed).newValue
}

/// Writes `text` to a new temporary file and returns its path.
func writeTemporaryFile(_ text: String, name: String = "scenario.json") -> String {
    let path = uniqueTemporaryPath(name)
    if let f = fopen(path, "wb") {
        _ = text.withCString { fputs($0, f) }
        fclose(f)
    }
    return path
}

/// Runs the built `carouselctl` binary with stdout and stderr sent to temporary files.
func runBinary(_ arguments: [String]) -> SimulateRun {
    let executable = TestPaths.product("carouselctl")
    let outPath = uniqueTemporaryPath("stdout"), errPath = uniqueTemporaryPath("stderr")
    defer { unlink(outPath); unlink(errPath) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    guard rc == 0 else { return SimulateRun(status: .failure, stdout: "", stderr: "posix_spawn failed: \(rc)") }
    var wstatus: Int32 = 0
    while waitpid(pid, &wstatus, 0) < 0 && errno == EINTR {}
    let code = (wstatus >> 8) & 0xff
    return SimulateRun(status: ExitStatus(rawValue: code) ?? .failure,
                       stdout: readTextFile(outPath) ?? "", stderr: readTextFile(errPath) ?? "")
}

/// The path of an example scenario in docs/examples/.
func example(_ name: String) -> String { TestPaths.packageRoot + "/docs/examples/" + name }

extension JSONValue {
    // Lookup by key and index: WireJSON's own subscripts (JSONValue is WireJSON).
    var double: Double? {
        if case let .number(v) = self { return v }
        return nil
    }
    var string: String? {
        if case let .string(s) = self { return s }
        return nil
    }
    var array: [JSONValue]? {
        if case let .array(a) = self { return a }
        return nil
    }
}
