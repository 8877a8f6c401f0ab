import CLinux
import CarouselTestSupport
import Testing
@testable import CarouselDaemon
#if canImport(Glibc)
import Glibc
#endif

/// The socket file under attack: who may remove it, what a racer can redirect, and a start-up
/// probe that meets a daemon which does not accept. Each test is bounded in time.
@Suite(.serialized) struct EndToEndSocketFileTests {
    /// Start A, remove its socket, start B on the same path, stop A: B's socket must stay, since
    /// A removes only the file it bound (same device and inode).
    @Test func aStoppingDaemonLeavesTheSocketOfAnother() throws {
        let a = try E2EDaemon("owner-a")
        #expect(unlink(a.socketPath) == 0)
        let b = try E2EDaemon("owner-b", overrides: ["server": ["socket": a.socketPath]], waitForSocket: false)
        try b.process.waitForSocket(a.socketPath)
        #expect(try a.stop() == 0)
        #expect(fileExists(a.socketPath), "A removed B's socket")
        let c = try SocketClient(path: a.socketPath)
        #expect(try c.readJSON()["class"] == .string("VERSION"))
        c.close()
        #expect(try b.stop() == 0)
        #expect(!fileExists(a.socketPath), "B did not remove its own socket")
    }

    /// In a directory every user may write and that has no sticky bit, any user can replace the
    /// socket (or a symlink in its place): the daemon refuses to start there, saying why.
    @Test func aWorldWritableDirectoryWithoutTheStickyBitIsRefused() throws {
        let directory = TestTemp.path("open-dir")
        #expect(mkdir(directory, 0o700) == 0)
        defer { rmdir(directory) }
        #expect(chmod(directory, 0o777) == 0)
        let socket = directory + "/c.sock"
        let daemon = try E2EDaemon("open-dir", overrides: ["server": ["socket": socket]], waitForSocket: false)
        defer { unlink(socket) }
        #expect(try daemon.process.wait(timeoutSeconds: 5) == 78)
        #expect(daemon.process.log.contains("\(socket): its directory \(directory) is writable by every user and has "
            + "no sticky bit, so any user could replace the socket; use a directory only the daemon's user can write "
            + "(such as /run/carouseld) or set the sticky bit (chmod +t \(directory))"))
        #expect(!fileExists(socket))
        // With the sticky bit (as /tmp has) the same directory is fine, and the socket gets its mode.
        #expect(chmod(directory, 0o1777) == 0)
        let fine = try E2EDaemon("sticky-dir", overrides: ["server": ["socket": socket, "socket_mode": "0660"]],
                                 waitForSocket: false)
        try fine.process.waitForSocket(socket)
        var st = stat()
        #expect(lstat(socket, &st) == 0)
        #expect(st.st_mode & 0o7777 == 0o660)
        #expect(try fine.stop() == 0)
    }

    /// The attack: a racer keeps replacing the socket path with a symlink to a root-owned 0600
    /// file while the listener is set up again and again. The mode is given to the socket before
    /// it appears at the path, so the file's mode never changes. Bounded to 1.5 s of binds.
    /// The default socket's folder, /run/carouseld, exists only under the service: a daemon
    /// started by hand without --socket meets a missing folder, and is told what to do.
    @Test func aMissingSocketDirectoryIsNamedWithWhatToDo() throws {
        let directory = TestTemp.path("no-such-dir")
        let socket = directory + "/c.sock"
        let daemon = try E2EDaemon("no-dir", overrides: ["server": ["socket": socket]], waitForSocket: false)
        #expect(try daemon.process.wait(timeoutSeconds: 5) == 74)
        #expect(daemon.process.log.contains("cannot listen: \(socket): its directory \(directory) does not exist "
            + "(carouseld.service has systemd create /run/carouseld); started by hand, give a socket in a folder of "
            + "yours with --socket PATH, as scripts/demo does"), "log: \(daemon.process.log)")
    }

    @Test func aSymlinkSwappedInAfterBindIsNeverChmodded() throws {
        let directory = TestTemp.path("race-dir")
        #expect(mkdir(directory, 0o755) == 0)
        let target = directory + "/secret", path = directory + "/c.sock", link = directory + "/link"
        try TestTemp.write("secret\n", to: target)
        #expect(chmod(target, 0o600) == 0)
        defer { unlink(target); unlink(path); unlink(link); rmdir(directory) }
        let racer = SymlinkRacer(target: target, link: link, path: path)
        var thread = pthread_t()
        #expect(pthread_create(&thread, nil, { raw in
            let r = Unmanaged<SymlinkRacer>.fromOpaque(raw!).takeUnretainedValue()
            while !r.stopped {
                _ = symlink(r.target, r.link)
                _ = rename(r.link, r.path)
            }
            return nil
        }, Unmanaged.passUnretained(racer).toOpaque()) == 0)
        let end = clinux_monotonic_ns() + 1_500_000_000
        var binds = 0
        while clinux_monotonic_ns() < end {
            if let bound = try? UnixListener.bind(path: path, mode: 0o666, gid: nil) {
                close(bound.fd)
                binds += 1
            }
            _ = unlink(path)
        }
        racer.stop()
        pthread_join(thread, nil)
        var st = stat()
        #expect(stat(target, &st) == 0)
        #expect(st.st_mode & 0o7777 == 0o600, "the racer's symlink redirected a chmod (\(binds) binds)")
    }

    /// The private directory's path is longer than the socket's: a socket path of the full 107
    /// bytes with a short name still binds (through the directory's descriptor) and gets its mode.
    @Test func aSocketPathOfTheFullLengthStillBinds() throws {
        let base = TestTemp.path("long")
        let directory = base + "/" + String(repeating: "d", count: 107 - base.utf8.count - 1 - 7)
        #expect(mkdir(base, 0o755) == 0 && mkdir(directory, 0o755) == 0)
        let path = directory + "/s.sock"
        #expect(path.utf8.count == 107)
        defer { unlink(path); rmdir(directory); rmdir(base) }
        let bound = try UnixListener.bind(path: path, mode: 0o640, gid: nil)
        defer { close(bound.fd) }
        var st = stat()
        #expect(lstat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFSOCK)
        #expect(st.st_mode & 0o7777 == 0o640)
        #expect(UInt64(st.st_ino) == bound.file.inode)
        #expect(UnixListener.probe(path))
    }

    /// A daemon that is stopped (or stuck) with its listen backlog full: a blocking `connect`
    /// in the start-up probe waited in the kernel for as long as it does not accept, deaf to
    /// SIGTERM. The probe does not block: the new daemon sees a listener and exits 69 at once.
    @Test func theStartupProbeDoesNotHangOnAFullBacklog() throws {
        let path = TestTemp.path("full.sock")
        defer { unlink(path) }
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        #expect(listen(listener, 0) == 0)
        // Fill the backlog: non-blocking connects until the kernel says EAGAIN.
        var pending: [Int32] = []
        defer { for fd in pending { close(fd) } }
        var full = false
        for _ in 0..<64 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            pending.append(fd)
            let r = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if r != 0 && errno == EAGAIN { full = true; break }
        }
        #expect(full, "the backlog never filled")
        let daemon = try E2EDaemon("full-backlog", overrides: ["server": ["socket": path]], waitForSocket: false)
        #expect(try daemon.process.wait(timeoutSeconds: 5) == 69)
        #expect(daemon.process.log.contains("\(path): another carouseld is already serving this socket"))
        #expect(fileExists(path), "the listener's socket file was removed")
    }
}

/// The racer's paths and its stop flag, shared with its thread.
private final class SymlinkRacer: @unchecked Sendable {
    let target: String, link: String, path: String
    private var flag = pthread_mutex_t()
    private var done = false
    init(target: String, link: String, path: String) {
        self.target = target
        self.link = link
        self.path = path
        pthread_mutex_init(&flag, nil)
    }
    var stopped: Bool {
        pthread_mutex_lock(&flag); defer { pthread_mutex_unlock(&flag) }
        return done
    }
    func stop() {
        pthread_mutex_lock(&flag); done = true; pthread_mutex_unlock(&flag)
    }
}
