import CarouselConfig
import Testing
@testable import CarouselDaemon

/// The `[server]` keys of issue 15, defect 1 (`control_reserve`, `max_clients_per_uid`,
/// `idle_timeout_s`) and how they reach the core's limits.
@Suite struct ServerLimitsConfigurationTests {
    @Test func theKeysReachTheCoreLimits() throws {
        let c = try DaemonConfiguration.parse(
            text: "[server]\nmax_clients = 100\ncontrol_reserve = 10\nmax_clients_per_uid = 5\nidle_timeout_s = 2.5\n", path: "c.conf")
        let limits = DaemonRuntime.limits(c)
        #expect(limits.maxClients == 100 && limits.controlReserve == 10 && limits.maxClientsPerUID == 5)
        #expect(limits.idleTimeoutNanoseconds == 2_500_000_000)
        let defaults = DaemonRuntime.limits(.defaults)
        #expect(defaults.controlReserve == 4 && defaults.maxClientsPerUID == 16 && defaults.idleTimeoutNanoseconds == 30_000_000_000)
    }

    @Test func theDefaultReserveNeverTakesMoreThanHalf() throws {
        // A file from before control_reserve existed, with a small max_clients, still loads and
        // still admits ordinary watchers: 5 slots, reserve min(4, 5 / 2) = 2.
        let c = try DaemonConfiguration.parse(text: "[server]\nmax_clients = 5\n", path: "c.conf")
        #expect(c.server.effectiveControlReserve == 2)
        #expect(DaemonRuntime.limits(c).controlReserve == 2)
        let one = try DaemonConfiguration.parse(text: "[server]\nmax_clients = 1\n", path: "c.conf")
        #expect(DaemonRuntime.limits(one).controlReserve == 0)
    }

    @Test func anExplicitReserveOverHalfIsRefused() {
        #expect(throws: ConfigurationError.inconsistent(
            path: "c.conf", line: 3, section: "server", key: "control_reserve",
            message: "5 is more than half of max_clients (8): at most 4, so that clients without control rights can connect")) {
            try DaemonConfiguration.parse(text: "[server]\nmax_clients = 8\ncontrol_reserve = 5\n", path: "c.conf")
        }
    }

    @Test func outOfRangeValuesNameTheKey() throws {
        #expect(throws: ConfigurationError.badValue(path: "c.conf", line: 2, section: "server", key: "idle_timeout_s",
                                                    value: "-1", expected: "0 (never) or a number from 0.1 to 86400 (seconds)")) {
            try DaemonConfiguration.parse(text: "[server]\nidle_timeout_s = -1\n", path: "c.conf")
        }
        #expect(throws: ConfigurationError.badValue(path: "c.conf", line: 2, section: "server", key: "idle_timeout_s",
                                                    value: "1e-9", expected: "0 (never) or a number from 0.1 to 86400 (seconds)")) {
            try DaemonConfiguration.parse(text: "[server]\nidle_timeout_s = 1e-9\n", path: "c.conf")
        }
        #expect(try DaemonConfiguration.parse(text: "[server]\nidle_timeout_s = 0\n", path: "c.conf").server.idleTimeoutSeconds == 0)
        #expect(try DaemonConfiguration.parse(text: "[server]\nidle_timeout_s = 0.1\n", path: "c.conf").server.idleTimeoutSeconds == 0.1)
        #expect(throws: ConfigurationError.badValue(path: "c.conf", line: 2, section: "server", key: "max_clients_per_uid",
                                                    value: "0", expected: "a whole number from 1 to 4096 (connections)")) {
            try DaemonConfiguration.parse(text: "[server]\nmax_clients_per_uid = 0\n", path: "c.conf")
        }
    }
}
