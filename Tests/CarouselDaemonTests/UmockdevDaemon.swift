import CarouselTestSupport
import CLinux
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The built `carouseld` in the foreground inside a umockdev testbed (its sysfs and /dev are
/// the testbed's), on a config of its own: `E2EDaemon.configText` with `overrides`, socket and
/// config under `TestTemp` named after `name`. A test ends it with `kill()` in a `defer` (SIGKILL,
/// then the files go) or checks its own SIGTERM exit first.
final class UmockdevDaemon {
    let process: UmockdevProcess
    let socketPath: String
    let configPath: String

    /// Writes the config and starts the daemon (`-v` adds its debug lines to
    /// `process.standardErrorSoFar`). Does not wait for the socket: `client()` does.
    /// - Throws: what writing the config or starting the process under umockdev throws.
    init(_ name: String, testbed: UmockdevTestbed, overrides: [String: [String: String]], verbose: Bool = false) throws {
        socketPath = TestTemp.path(name + ".sock")
        configPath = TestTemp.path(name + ".conf")
        try TestTemp.write(E2EDaemon.configText(socketPath: socketPath, overrides: overrides), to: configPath)
        process = try UmockdevProcess(TestPaths.product("carouseld"),
                                      ["-c", configPath, "--foreground"] + (verbose ? ["-v"] : []), testbed: testbed)
    }

    /// A client connected as soon as the socket accepts (within 20 s of the start), its VERSION
    /// greeting read and checked; a failure quotes the daemon's log.
    func client() throws -> SocketClient {
        var client: SocketClient?
        let deadline = clinux_monotonic_ns() + 20_000_000_000
        while client == nil, clinux_monotonic_ns() < deadline {
            client = try? SocketClient(path: socketPath)
            if client == nil { _ = poll(nil, 0, 5) }
        }
        let c = try #require(client, "daemon log: \(process.standardErrorSoFar)")
        #expect(try c.readJSON()["class"] == .string("VERSION"))
        return c
    }

    /// SIGTERM and the exit status (0 for a clean stop), within 10 s.
    func terminate() throws -> Int32 {
        process.signal(SIGTERM)
        return try process.waitForExit(timeoutSeconds: 10).status
    }

    /// SIGKILL (nothing if it has exited), then the config and socket files are removed.
    func kill() {
        process.signal(SIGKILL)
        _ = try? process.waitForExit(timeoutSeconds: 10)
        unlink(configPath)
        unlink(socketPath)
    }
}
