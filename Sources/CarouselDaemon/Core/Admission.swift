/// Who may connect (docs/PROTOCOL.md "Limits"): a connection is refused with
/// `ERROR too_many_clients` when
///
/// 1. `max_clients` connections are open, or, for a peer without control rights,
/// 2. its uid already holds `max_clients_per_uid` connections, or
/// 3. only the `control_reserve` slots are left: they are kept for peers with control rights
///    (root, the daemon's user, `control_group`), so that an ordinary local user who opens
///    connections in a loop can neither lock out the operator's tools nor the bridges.
///
/// Peers with control rights are limited only by `max_clients`: the web bridge
/// (`carouseld-web`) connects every page as one uid, and a limit per uid would cap the
/// pages it can serve. Connections being closed (a final ERROR queued) do not count.
extension DaemonCore {
    /// Why a new connection from `credentials` must be refused, as the `too_many_clients`
    /// message naming the limit (the configuration key); nil when it is admitted.
    /// - Parameter mayControl: whether the peer has control rights (`ControlPolicy`).
    public func admissionRefusal(credentials: PeerCredentials, mayControl: Bool) -> String? {
        var open = 0, sameUID = 0
        for s in sessions.values where s.isOpen {
            open += 1
            if !s.mayControl && s.credentials.uid == credentials.uid { sameUID += 1 }
        }
        if open >= limits.maxClients {
            return "the server already has \(limits.maxClients) clients (max_clients)"
        }
        guard !mayControl else { return nil }
        if sameUID >= limits.maxClientsPerUID {
            return "uid \(credentials.uid) has max_clients_per_uid (\(limits.maxClientsPerUID)) connections open; "
                + "peers with control rights are exempt"
        }
        let reserve = max(limits.controlReserve, 0)
        if open >= limits.maxClients - reserve {
            return "\(open) of max_clients \(limits.maxClients) connections are open and the last \(reserve) are kept "
                + "for peers with control rights (control_reserve)"
        }
        return nil
    }
}
