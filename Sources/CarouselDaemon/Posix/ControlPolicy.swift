#if canImport(Glibc)
import CarouselPosix
import Glibc
#endif

/// Who may send control commands (docs/PROTOCOL.md "Requests"): uid 0, the daemon's own uid, or a member of
/// `[server] control_group`, judged from the peer's SO_PEERCRED credentials.
struct ControlPolicy {
    /// The daemon's effective uid.
    var daemonUID: UInt32
    /// The gid of `control_group`, nil when none is configured.
    var controlGID: UInt32?

    /// Whether the peer has control rights. Group membership counts the peer's primary gid
    /// and its supplementary groups as the kernel sees them now (`Groups:` in
    /// `/proc/PID/status`, which reflects `setgroups`/`setpriv --clear-groups`), falling back to
    /// the account's group list (`getgrouplist`) when the process is gone.
    func mayControl(_ peer: PeerCredentials) -> Bool {
        if peer.uid == 0 || peer.uid == daemonUID { return true }
        guard let gid = controlGID else { return false }
        if peer.gid == gid { return true }
        if let groups = Self.processGroups(pid: peer.pid) { return groups.contains(gid) }
        return Self.accountGroups(uid: peer.uid, primary: peer.gid).contains(gid)
    }

    /// Supplementary groups of a running process, from `/proc/PID/status`.
    static func processGroups(pid: Int32) -> [UInt32]? {
        guard pid > 0, let text = readSmallFile("/proc/\(pid)/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("Groups:") {
            return line.dropFirst("Groups:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { UInt32($0) }
        }
        return nil
    }

    /// The groups of the account `uid` (`getpwuid_r` + `getgrouplist`).
    static func accountGroups(uid: UInt32, primary: UInt32) -> [UInt32] {
        var pw = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getpwuid_r(uid_t(uid), &pw, &buffer, buffer.count, &result) == 0, result != nil, let name = pw.pw_name else {
            return [primary]
        }
        var count: Int32 = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, gid_t(primary), &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(name, gid_t(primary), &groups, &count) >= 0 else { return [primary] }
        }
        return groups.prefix(Int(count)).map { UInt32($0) }
    }
}
