import CarouselProtocol
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// carouseld exiting while a thread of it is still inside libiio (a remote sensor's worker on
/// an iiod that does not answer: SIGTERM stops it, but it waits for libiio's 5 s timeout) must
/// run no exit handler under that thread. libiio 0.24 registers one that calls libxml2's
/// `xmlCleanupParser`, which frees the XML parser's global state, while the thread may be
/// parsing iiod's XML. A preloaded probe stands in for `xmlCleanupParser` and records how many
/// `carouseld-*` threads were alive when it was called.
@Suite(.serialized) struct ExitWithThreadsInsideLibiioTests {
    static let probeSource = #"""
        #define _GNU_SOURCE
        #include <dirent.h>
        #include <dlfcn.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        void xmlCleanupParser(void) {
            int helpers = 0;
            DIR *tasks = opendir("/proc/self/task");
            struct dirent *e;
            while (tasks && (e = readdir(tasks))) {
                char path[64], comm[32] = "";
                if (e->d_name[0] == '.') continue;
                snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
                FILE *f = fopen(path, "r");
                if (!f) continue;
                if (fgets(comm, sizeof comm, f) && strncmp(comm, "carouseld-", 10) == 0) helpers++;
                fclose(f);
            }
            if (tasks) closedir(tasks);
            const char *log = getenv("CAROUSEL_PROBE_LOG");
            FILE *out = log ? fopen(log, "a") : NULL;
            if (out) { fprintf(out, "xmlCleanupParser with %d helper threads\n", helpers); fclose(out); }
            void (*real)(void) = (void (*)(void))dlsym(RTLD_NEXT, "xmlCleanupParser");
            if (real) real();
        }
        """#

    /// Builds the probe with the Swift toolchain's clang (which SwiftPM compiles the package's C
    /// targets with): from PATH, else beside the real `swift` that PATH names (Debian 13's
    /// swiftlang puts only `swift` and its tools in /usr/bin, as links into /usr/libexec/swift/bin
    /// where its clang is); returns the shared object's path.
    static func probe() throws -> String {
        let path = getenv("PATH").map { String(cString: $0) } ?? ""
        let directories = path.split(separator: ":").map(String.init)
        let toolchain = directories.map { $0 + "/swift" }.first { access($0, X_OK) == 0 }
            .flatMap { realpath($0, nil) }.map { resolved -> String in
                defer { free(resolved) }
                let swift = String(cString: resolved)
                return String(swift[..<(swift.lastIndex(of: "/") ?? swift.endIndex)])
            }
        let clang = try #require((directories + (toolchain.map { [$0] } ?? [])).map { $0 + "/clang" }.first { access($0, X_OK) == 0 },
                                 "no clang on PATH nor beside the Swift toolchain's swift (\(toolchain ?? "no swift on PATH")): \(path)")
        let source = TestTemp.path("xml-probe.c"), library = TestTemp.path("xml-probe.so")
        try TestTemp.write(probeSource, to: source)
        defer { unlink(source) }
        let built = ServiceTestSupport.run([clang, "-shared", "-fPIC", "-o", library, source, "-ldl"])
        try #require(built.status == 0, "\(clang): \(built.standardError)")
        return library
    }

    /// Runs carouseld with the probe, `[sensor] uri` on `iiod`, lets `prepare` act on it, sends
    /// SIGTERM; returns the exit status and the probe's lines.
    static func exitRun(_ name: String, probe: String, iiod: HungServer,
                        prepare: (_ socketPath: String, _ daemon: DaemonProcess) throws -> Void) throws -> (Int32, [String]) {
        let socketPath = TestTemp.path(name + ".sock"), configPath = TestTemp.path(name + ".conf")
        let probeLog = TestTemp.path(name + ".probe")
        unlink(probeLog)
        defer { unlink(configPath); unlink(probeLog) }
        try TestTemp.write(E2EDaemon.configText(socketPath: socketPath, overrides: [
            "sensor": ["uri": "ip:127.0.0.1:\(iiod.port)"]]), to: configPath)
        let daemon = try DaemonProcess(executable: TestPaths.product("carouseld"), arguments: ["-c", configPath, "--foreground"],
                                       environment: ["LD_PRELOAD": probe, "CAROUSEL_PROBE_LOG": probeLog],
                                       logPath: TestTemp.path(name + ".log"))
        try daemon.waitForSocket(socketPath)
        try prepare(socketPath, daemon)
        daemon.signal(SIGTERM)
        let status = try daemon.wait()
        let lines = (readTextFile(probeLog) ?? "").split(separator: "\n").map(String.init)
        return (status, lines)
    }

    @Test func noExitHandlerRunsUnderAWorkerInsideLibiio() throws {
        let probe = try Self.probe()
        defer { unlink(probe) }
        let iiod = try HungServer()
        // No client: no sensor thread, and the exit handlers run as usual (the probe works).
        let (idleStatus, idleLines) = try Self.exitRun("exit-idle", probe: probe, iiod: iiod) { _, _ in }
        #expect(idleStatus == 0)
        #expect(idleLines == ["xmlCleanupParser with 0 helper threads"])
        // A watcher starts the remote sensor: its worker connects to the hung iiod and waits in
        // libiio's read when SIGTERM comes.
        var watcher: SocketClient?
        let (status, lines) = try Self.exitRun("exit-hung", probe: probe, iiod: iiod) { socketPath, daemon in
            let c = try SocketClient(path: socketPath)
            _ = try c.readJSON()
            try c.send(#"{"cmd":"watch"}"#)
            watcher = c
            #expect(iiod.acceptConnection(timeoutSeconds: 10), "the worker never connected: \(daemon.log.suffix(400))")
        }
        watcher?.close()
        #expect(status == 0)
        #expect(lines == [], "exit handlers ran while the worker was inside libiio: \(lines)")
    }
}
