#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Tests that must act as another user (connect as uid 65534 to check authorisation) need root.
public enum TestPrivileges {
    /// Whether the process runs as root (effective uid 0).
    public static var isRoot: Bool { geteuid() == 0 }

    /// Records a failure saying the test needs root and why, and returns false, when not root;
    /// returns true as root. `purpose` completes "it …", e.g. "connects as uid 65534".
    public static func requireRoot(_ purpose: String) -> Bool {
        guard !isRoot else { return true }
        let message = "this test needs root: it \(purpose), which uid \(geteuid()) cannot; run the tests as root (as CI does)"
        Issue.record(Comment(rawValue: message))
        return false
    }

    /// Why another user (uid 65534) cannot reach `path`: the first folder on the way, from `/`,
    /// that others may not enter (no search permission, `o+x`), with its mode; or `path` itself
    /// when `executable` and others may not run it. nil when they can (or `path` is missing:
    /// the caller's own error says so).
    public static func unreachableByOthers(_ path: String, executable: Bool = false) -> String? {
        var folder = ""
        let parts = path.split(separator: "/").map(String.init)
        for part in parts.dropLast() {
            folder += "/" + part
            var info = stat()
            guard stat(folder, &info) == 0 else { return nil }
            if info.st_mode & S_IXOTH == 0 {
                return "\(folder) is mode \(String(info.st_mode & 0o7777, radix: 8)), which other users may not enter"
            }
        }
        var info = stat()
        if executable, stat(path, &info) == 0, info.st_mode & S_IXOTH == 0 {
            return "\(path) is mode \(String(info.st_mode & 0o7777, radix: 8)), which other users may not run"
        }
        return nil
    }

    /// Records a failure saying why uid 65534 cannot reach `path` and returns false, or returns
    /// true when it can. `purpose` completes "it …", e.g. "runs carouselctl as uid 65534".
    public static func requireReachableByOthers(_ path: String, executable: Bool = false, _ purpose: String) -> Bool {
        guard let why = unreachableByOthers(path, executable: executable) else { return true }
        let message = "this test needs \(path) reachable by other users: it \(purpose), and \(why) "
            + "(a checkout under a 0700 folder, as mktemp -d makes; run the tests from a checkout whose folders are "
            + "searchable by others, or chmod o+x that folder)"
        Issue.record(Comment(rawValue: message))
        return false
    }
}
