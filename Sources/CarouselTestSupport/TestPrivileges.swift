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
}
