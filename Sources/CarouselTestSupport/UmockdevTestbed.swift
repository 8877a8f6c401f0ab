#if canImport(Glibc)
import Glibc
#endif
import CUmockdev

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
    }

    /// Adds the devices of a description file, e.g. `TestPaths.fixture("umockdev/hid-accel.umockdev")`.
    /// - Throws: `UmockdevError.description` (also when the file is missing).
    public func add(file path: String) throws {
        guard let text = readTextFile(path) else { throw UmockdevError.description("cannot read \(path)") }
        try add(description: text)
    }

    /// Removes a device (`/sys/devices/...` path as given in the description's `P:` line, with
    /// or without the `/sys` prefix). Send the `remove` uevent first (DESIGN §8), e.g. with
    /// `unplug(_:)`.
    public func remove(device syspath: String) {
        umockdev_testbed_remove_device(testbed, sysPath(syspath))
    }

    /// Sends a uevent (`add`, `remove`, `change`) for a device to udev monitors in preloaded
    /// processes.
    public func uevent(_ action: String, device syspath: String) {
        umockdev_testbed_uevent(testbed, sysPath(syspath), action)
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
                let fd = umockdev_testbed_get_dev_fd(testbed, node)
                if fd >= 0, let slave = ptsname(fd) {
                    relink.append((node, String(cString: slave)))
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
