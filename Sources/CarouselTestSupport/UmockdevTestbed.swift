#if canImport(Glibc)
import Glibc
#endif
import CUmockdev
// sys/socket.h comes in through CLinux's module too; without importing it, SOCK_DGRAM is not found in
// release builds.
import CLinux

/// Errors of the umockdev test helpers.
public enum UmockdevError: Error, CustomStringConvertible {
    /// libumockdev could not create a testbed.
    case testbed(String)
    /// A device description was rejected: the GError message.
    case description(String)
    /// `/dev/NAME` is not a PTY-backed node of this testbed.
    case noStreamNode(String)
    /// A system call failed: what, errno.
    case system(String, Int32)
    /// A child process did not do what was expected within its time limit.
    case timeout(String)

    public var description: String {
        switch self {
        case let .testbed(m): return "umockdev: \(m)"
        case let .description(m): return "umockdev: bad device description: \(m)"
        case let .noStreamNode(n): return "umockdev: \(n) is not a PTY-backed device node"
        case let .system(what, e): return "\(what): \(String(cString: strerror(e))) (errno \(e))"
        case let .timeout(m): return "timeout: \(m)"
        }
    }
}

/// A umockdev sandbox of fake sysfs devices, udev properties and `/dev` nodes. Wraps
/// `UMockdevTestbed` (libumockdev 0.17, C API).
///
/// Only processes started with umockdev's preload library and `UMOCKDEV_DIR = rootDirectory`
/// see it (use `UmockdevProcess`); the test process itself keeps seeing the real system. The
/// sandbox directory is deleted when the object goes away. Each instance is its own directory,
/// so tests may use several at once; note that `umockdev_testbed_new` also sets `UMOCKDEV_DIR`
/// in this process's environment, which the helpers here never rely on.
public final class UmockdevTestbed {
    private let testbed: UnsafeMutablePointer<UMockdevTestbed>
    /// The sandbox root, to pass as `UMOCKDEV_DIR`.
    public let rootDirectory: String

    /// Creates an empty testbed (no devices: `/sys` exists and is empty).
    /// - Throws: `UmockdevError.testbed` when libumockdev fails.
    public init() throws {
        guard let tb = umockdev_testbed_new() else { throw UmockdevError.testbed("umockdev_testbed_new failed") }
        testbed = tb
        guard let root = umockdev_testbed_get_root_dir(tb) else {
            g_object_unref(UnsafeMutableRawPointer(tb))
            throw UmockdevError.testbed("no root directory")
        }
        rootDirectory = String(cString: root)
        g_free(root)
        provideDevtmpfsHint()
    }

    /// libudev (systemd ≥ 248) turns a `udev` monitor into a deaf one when udevd seems absent:
    /// no `/run/udev/control` and `/dev` not a devtmpfs (containers). umockdev's preload library
    /// redirects `/proc/…` to the testbed when the file exists there, so the testbed gets a copy
    /// of `/proc/self/mountinfo` whose `/dev` line says devtmpfs; hotplug tests then behave the
    /// same in a container as on a host. Nothing is written when udevd is running.
    private func provideDevtmpfsHint() {
        guard access("/run/udev/control", F_OK) != 0, let mountinfo = readTextFile("/proc/self/mountinfo") else { return }
        let lines = mountinfo.split(separator: "\n").map { line -> String in
            // Fields: id parent major:minor root mountpoint options [optional…] - fstype source super
            let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            guard fields.count > 6, fields[4] == "/dev", let dash = fields.firstIndex(of: "-"), dash + 2 < fields.count else {
                return String(line)
            }
            var f = fields
            f[dash + 1] = "devtmpfs"
            return f.joined(separator: " ")
        }
        let dir = rootDirectory + "/proc/self"
        mkdir(rootDirectory + "/proc", 0o755)
        mkdir(dir, 0o755)
        let fd = open(dir + "/mountinfo", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(testbed)) }

    /// Adds the devices of a umockdev description (`P:`, `A:`, `E:`, `N:`, `L:`, `H:` lines;
    /// blank line between devices; values unescaped as C strings, so `\n` ends an attribute).
    /// Lines starting with `#` are comments (stripped here: libumockdev itself rejects them).
    /// - Throws: `UmockdevError.description` with libumockdev's message.
    public func add(description: String) throws {
        let text = UmockdevTestbed.stripComments(description)
        var error: UnsafeMutablePointer<GError>?
        let ok = umockdev_testbed_add_from_string(testbed, text, &error)
        if ok == 0 {
            let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "unknown error"
            if let error { g_error_free(error) }
            throw UmockdevError.description(message)
        }
        // Remember which PTY backs each new node, to restore it on re-plug (see `plug`).
        for line in text.split(separator: "\n") where line.hasPrefix("N: ") && !line.contains("=") {
            let node = "/dev/" + line.dropFirst(3)
            var target = [CChar](repeating: 0, count: 4096)
            let n = readlink(rootDirectory + node, &target, target.count - 1)
            if n > 0 { ptyTargets[node] = String(decoding: target[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        }
    }

    /// PTY slave paths (`/dev/pts/N`) of the PTY-backed nodes, by node (`/dev/iio:device0`).
    private var ptyTargets: [String: String] = [:]

    /// Adds the devices of a description file, e.g. `TestPaths.fixture("umockdev/hid-accel.umockdev")`.
    /// - Throws: `UmockdevError.description` (also when the file is missing).
    public func add(file path: String) throws {
        guard let text = readTextFile(path) else { throw UmockdevError.description("cannot read \(path)") }
        try add(description: text)
    }

    /// Removes a device (`/sys/devices/...` path as given in the description's `P:` line, with
    /// or without the `/sys` prefix). Send the `remove` uevent first (docs/SENSORS.md "Testing with
    /// umockdev"), e.g. with
    /// `unplug(_:)`.
    public func remove(device syspath: String) {
        umockdev_testbed_remove_device(testbed, sysPath(syspath))
    }

    /// Sends a uevent (`add`, `remove`, `change`) for a device to the udev monitors of preloaded
    /// processes.
    ///
    /// Not `umockdev_testbed_uevent`: libumockdev's sender looks the device up with libudev in
    /// the calling process, which only works when the test runner itself runs under the preload
    /// library. This builds the same message from the testbed's files instead: a libudev
    /// monitor header (`"libudev"`, magic 0xfeedcafe, subsystem/devtype MurmurHash2 for socket
    /// filters) and `KEY=value` properties, sent to every `event*` socket that the preload
    /// library created in the testbed root for a monitor.
    public func uevent(_ action: String, device syspath: String) {
        let sys = sysPath(syspath)
        let devpath = String(sys.dropFirst(4))
        var properties: [(String, String)] = [("ACTION", action), ("DEVPATH", devpath)]
        var file: [String: String] = [:]
        for line in (readTextFile(rootDirectory + sys + "/uevent") ?? "").split(separator: "\n") {
            if let eq = line.firstIndex(of: "=") { file[String(line[..<eq])] = String(line[line.index(after: eq)...]) }
        }
        var subsystem = file["SUBSYSTEM"] ?? ""
        if subsystem.isEmpty {
            var target = [CChar](repeating: 0, count: 4096)
            let n = readlink(rootDirectory + sys + "/subsystem", &target, target.count - 1)
            if n > 0 {
                let link = String(decoding: target[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                subsystem = link.split(separator: "/").last.map(String.init) ?? ""
            }
        }
        ueventSequence += 1
        properties.append(("SUBSYSTEM", subsystem))
        properties.append(("SEQNUM", String(ueventSequence)))
        if let devname = file["DEVNAME"] { properties.append(("DEVNAME", devname.hasPrefix("/dev/") ? devname : "/dev/" + devname)) }
        if let devtype = file["DEVTYPE"] { properties.append(("DEVTYPE", devtype)) }
        for (k, v) in file where !["SUBSYSTEM", "DEVNAME", "DEVTYPE", "ACTION", "DEVPATH", "SEQNUM"].contains(k) {
            properties.append((k, v))
        }
        var body: [UInt8] = []
        for (k, v) in properties { body += Array("\(k)=\(v)".utf8) + [0] }
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)] }
        func host32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xff), UInt8((v >> 8) & 0xff), UInt8((v >> 16) & 0xff), UInt8(v >> 24)] }
        let headerSize: UInt32 = 40
        var message = Array("libudev".utf8) + [0]
        message += be32(0xfeedcafe) + host32(headerSize) + host32(headerSize) + host32(UInt32(body.count))
        message += be32(murmurHash2(subsystem)) + be32(file["DEVTYPE"].map(murmurHash2) ?? 0) + host32(0) + host32(0)
        message += body
        for socketPath in eventSockets() {
            let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { continue }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                let bytes = Array(socketPath.utf8.prefix(raw.count - 1))
                for (i, b) in bytes.enumerated() { raw[i] = b }
            }
            _ = withUnsafePointer(to: &address) { ptr in
                ptr.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                    message.withUnsafeBytes { m in
                        sendto(fd, m.baseAddress, m.count, 0, sa, socklen_t(MemoryLayout<sockaddr_un>.size))
                    }
                }
            }
            close(fd)
        }
    }

    private var ueventSequence: UInt64 = 0

    /// The sockets (`ROOT/event0`, …) on which preloaded processes' udev monitors listen.
    private func eventSockets() -> [String] {
        guard let dir = opendir(rootDirectory) else { return [] }
        defer { closedir(dir) }
        var result: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix("event"), name.dropFirst(5).allSatisfy(\.isNumber), name.count > 5 {
                result.append(rootDirectory + "/" + name)
            }
        }
        return result
    }

    /// Unplugs a device the way the kernel does: the `remove` uevent, then the sysfs tree goes.
    public func unplug(device syspath: String) {
        uevent("remove", device: syspath)
        remove(device: syspath)
    }

    /// Removes `#` comment lines (and the blank lines they leave at the start).
    static func stripComments(_ text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("#") }
        while let first = lines.first, first.isEmpty { lines.removeFirst() }
        return lines.joined(separator: "\n")
    }

    /// Plugs devices in: adds the description, then sends `add` for every `P:` device in it.
    ///
    /// A device node that this testbed already backed with a PTY (a device unplugged earlier
    /// and now plugged back) keeps its PTY: libumockdev never forgets a PTY node and asserts if
    /// asked to create it twice, so its `N:` line is dropped and the node's symlink is restored
    /// to the same PTY, whose master end (`streamDescriptor`) stays valid.
    public func plug(description: String) throws {
        var lines: [Substring] = []
        var relink: [(String, String)] = []
        for line in UmockdevTestbed.stripComments(description).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("N: ") {
                let node = "/dev/" + (line.dropFirst(3).split(separator: "=").first.map(String.init) ?? "")
                if umockdev_testbed_get_dev_fd(testbed, node) >= 0, let slave = ptyTargets[node] {
                    relink.append((node, slave))
                    continue
                }
            }
            lines.append(line)
        }
        try add(description: lines.joined(separator: "\n"))
        for (node, slave) in relink {
            let path = rootDirectory + node
            unlink(path)
            if symlink(slave, path) != 0 { throw UmockdevError.system("symlink \(path)", errno) }
        }
        for line in description.split(separator: "\n") where line.hasPrefix("P: ") {
            uevent("add", device: String(line.dropFirst(3)))
        }
    }

    /// Sets (creates or overwrites) a sysfs attribute; `value` is written as given (end it with
    /// `\n` as the kernel does).
    public func setAttribute(device syspath: String, _ name: String, _ value: String) {
        umockdev_testbed_set_attribute(testbed, sysPath(syspath), name, value)
    }

    /// Reads a sysfs attribute file of the sandbox as text (what the code under test wrote).
    public func attribute(device syspath: String, _ name: String) -> String? {
        readTextFile(rootDirectory + sysPath(syspath) + "/" + name)
    }

    /// The controlling (master) end of a PTY-backed device node such as `/dev/iio:device0`
    /// (a description's `N:` line without contents). Bytes written to it are what the program
    /// under test reads from the node. The descriptor belongs to the testbed: never close it.
    /// It is switched to raw mode (no flow-control or signal characters), so any byte passes.
    /// - Throws: `UmockdevError.noStreamNode` when `node` is not such a device.
    public func streamDescriptor(node: String) throws -> Int32 {
        let fd = umockdev_testbed_get_dev_fd(testbed, node)
        guard fd >= 0 else { throw UmockdevError.noStreamNode(node) }
        var attributes = termios()
        if tcgetattr(fd, &attributes) == 0 {
            cfmakeraw(&attributes)
            _ = tcsetattr(fd, TCSANOW, &attributes)
        }
        return fd
    }

    /// Writes `bytes` to the PTY of `node` in one `write(2)` (one or more whole scan samples).
    /// - Throws: `UmockdevError` when the node is not a PTY or the write fails.
    public func stream(_ bytes: [UInt8], to node: String) throws {
        let fd = try streamDescriptor(node: node)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return write(fd, base + offset, buffer.count - offset)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw UmockdevError.system("write \(node)", errno)
            }
            offset += n
        }
    }

    private func sysPath(_ path: String) -> String {
        path.hasPrefix("/sys/") ? path : "/sys" + (path.hasPrefix("/") ? path : "/" + path)
    }
}

/// MurmurHash2 (Austin Appleby's 32-bit algorithm, seed = length), which libudev uses to hash
/// the subsystem and devtype into a monitor message header for in-kernel socket filters.
func murmurHash2(_ text: String) -> UInt32 {
    let bytes = Array(text.utf8)
    let m: UInt32 = 0x5bd1_e995
    var h = UInt32(truncatingIfNeeded: bytes.count)
    var i = 0
    while bytes.count - i >= 4 {
        var k = UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
        k = k &* m
        k ^= k >> 24
        k = k &* m
        h = h &* m
        h ^= k
        i += 4
    }
    let rest = bytes.count - i
    if rest >= 3 { h ^= UInt32(bytes[i + 2]) << 16 }
    if rest >= 2 { h ^= UInt32(bytes[i + 1]) << 8 }
    if rest >= 1 {
        h ^= UInt32(bytes[i])
        h = h &* m
    }
    h ^= h >> 13
    h = h &* m
    h ^= h >> 15
    return h
}
