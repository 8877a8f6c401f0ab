import CarouselConfig
import CarouselTestSupport
import Testing
@testable import CarouselDaemon
@testable import CarouselService
#if canImport(Glibc)
import Glibc
#endif

/// The unit files in systemd/: `systemd-analyze verify` (systemd 252) must accept them without
/// a single warning, and they must carry the settings the service relies on.
@Suite(.serialized) struct SystemdUnitTests {
    static let root = TestPaths.packageRoot

    /// Copies the units to a temporary directory with ExecStart pointing at the built binary
    /// (verify checks that the command exists and is executable) and verifies them.
    @Test func systemdAnalyzeVerifyPasses() throws {
        let binary = TestPaths.product("carouseld")
        #expect(access(binary, X_OK) == 0, "built carouseld missing at \(binary)")
        let directory = ServiceTestSupport.temporaryDirectory()
        let service = try #require(readTextFile(Self.root + "/systemd/carouseld.service"))
        let socket = try #require(readTextFile(Self.root + "/systemd/carouseld.socket"))
        let patched = service.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("ExecStart=") ? "ExecStart=\(binary) --config /etc/carouseld/carouseld.conf" : String(line)
        }.joined(separator: "\n")
        #expect(patched.contains("ExecStart=\(binary) "))
        #expect(ServiceTestSupport.writeFile(directory + "/carouseld.service", patched))
        #expect(ServiceTestSupport.writeFile(directory + "/carouseld.socket", socket))

        // Missing systemd-analyze fails the test (posix_spawnp reports it), it is not skipped.
        // --man=no: the Documentation= man pages are installed by the package, not here
        // (tests/package/run checks them).
        let result = ServiceTestSupport.run(["systemd-analyze", "verify", "--man=no", "carouseld.service", "carouseld.socket"],
                                            in: directory)
        #expect(result.status == 0, "systemd-analyze verify: \(result.standardError)")
        // verify only warns (exit 0) about unknown keys and bad values: any output about our
        // units is a failure.
        let warnings = Self.warningsAboutOurUnits(result.standardError)
        #expect(warnings == "", "systemd-analyze verify warned: \(warnings)")
        #expect(result.standardOutput == "")
    }

    /// Each service verifies without a warning and its exposure (`systemd-analyze security
    /// --offline=true`, systemd 252) is at most the score docs/SERVICE.md gives: a change that
    /// weakens a unit fails here.
    @Test(arguments: [("carouseld.service", 1.2), ("carouseld-web.service", 1.2), ("carousel-mqtt.service", 1.4)])
    func verifiesAndExposureIsAtMostTheDocumentedScore(unit: String, documented: Double) throws {
        let directory = ServiceTestSupport.temporaryDirectory()
        let text = try #require(readTextFile(Self.root + "/systemd/" + unit))
        let command = switch unit {
        case "carouseld.service": TestPaths.product("carouseld")
        case "carousel-mqtt.service": TestPaths.product("carousel-mqtt")
        default: Self.root + "/scripts/carouseld-web"
        }
        let patched = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("ExecStart=") ? "ExecStart=\(command)" : String(line)
        }.joined(separator: "\n")
        #expect(ServiceTestSupport.writeFile(directory + "/" + unit, patched))
        // --man=no: the Documentation= man pages are installed by the packages, not here.
        let verify = ServiceTestSupport.run(["systemd-analyze", "verify", "--man=no", "./" + unit], in: directory)
        let warnings = Self.warningsAboutOurUnits(verify.standardError)
        #expect(verify.status == 0 && warnings == "" && verify.standardOutput == "",
                "systemd-analyze verify \(unit): \(warnings)")
        let result = ServiceTestSupport.run(["systemd-analyze", "security", "--offline=true", "--no-pager", "./" + unit],
                                            in: directory)
        let marker = "Overall exposure level for \(unit): "
        let line = try #require(result.standardOutput.split(separator: "\n").first { $0.contains(marker) },
                                "no score from systemd-analyze security: \(result.standardOutput.suffix(400)) \(result.standardError)")
        let score = try #require(line.split(separator: " ").compactMap { Double($0) }.last, "\(line)")
        #expect(score <= documented, "\(unit): exposure \(score), docs/SERVICE.md says \(documented)")
        #expect(readTextFile(Self.root + "/docs/SERVICE.md")?.contains("`\(unit)` \(documented)") == true)
    }

    /// What `systemd-analyze verify` said about the units under test, without its lines about
    /// the installed units of other packages that ours name (`After=iiod.service`): verify loads
    /// and checks those too. Debian 13's iiod.service (libiio 0.26) has
    /// `Environment=$IIOD_EXTRA_OPTS=''` on line 16, which systemd 257 ignores with "Invalid
    /// environment assignment"; that is iiod's unit, not one of ours.
    /// - Parameter standardError: verify's standard error.
    /// - Returns: its lines that do not begin with an installed unit's path, joined by newlines.
    static func warningsAboutOurUnits(_ standardError: String) -> String {
        standardError.split(separator: "\n").filter { line in
            !["/usr/lib/systemd/system/", "/lib/systemd/system/", "/etc/systemd/system/"].contains { line.hasPrefix($0) }
        }.joined(separator: "\n")
    }

    /// The filter above keeps what verify says about our units and drops only other packages'
    /// installed units, on the message Debian 13's systemd gives for iiod.service.
    @Test func warningsAboutOtherPackagesUnitsAreLeftOut() {
        let iiod = "/usr/lib/systemd/system/iiod.service:16: Invalid environment assignment, ignoring: $IIOD_EXTRA_OPTS="
        let ours = "/tmp/carousel-test/carouseld.service:12: Unknown key name 'WatchdogSecs' in section 'Service', ignoring."
        #expect(Self.warningsAboutOurUnits(iiod + "\n") == "")
        #expect(Self.warningsAboutOurUnits(iiod + "\n" + ours + "\n") == ours)
        #expect(Self.warningsAboutOurUnits("carouseld.service: Command /x is not executable") == "carouseld.service: Command /x is not executable")
    }

    /// The check above really checks: a unit with an unknown key is reported.
    @Test func verifyReportsAnUnknownKey() throws {
        let directory = ServiceTestSupport.temporaryDirectory()
        let unit = "[Service]\nType=notify\nExecStart=\(TestPaths.product("carouseld"))\nWatchdogSecs=30s\n"
        #expect(ServiceTestSupport.writeFile(directory + "/bad.service", unit))
        let result = ServiceTestSupport.run(["systemd-analyze", "verify", "bad.service"], in: directory)
        #expect(result.standardError.contains("Unknown key 'WatchdogSecs'"), "\(result.standardError)")
    }

    static func settings(_ file: String) throws -> [String: [String]] {
        let text = try #require(readTextFile(root + "/systemd/" + file))
        var result: [String: [String]] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("[") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            result[String(line[..<equals]), default: []].append(String(line[line.index(after: equals)...]))
        }
        return result
    }

    @Test func serviceSettings() throws {
        let s = try Self.settings("carouseld.service")
        #expect(s["Type"] == ["notify"])
        #expect(s["RestartPreventExitStatus"] == ["78"])
        #expect(s["Restart"] == ["on-failure"])
        #expect(s["WatchdogSec"] == ["30s"])
        #expect(s["User"] == ["carouseld"] && s["Group"] == ["carouseld"])
        #expect(s["StateDirectory"] == ["carouseld"] && s["RuntimeDirectory"] == ["carouseld"])
        #expect(s["RuntimeDirectoryPreserve"] == ["yes"])
        #expect(s["DeviceAllow"] == ["char-iio rw"])
        #expect(s["CapabilityBoundingSet"] == [""])
        #expect(s["RestrictAddressFamilies"] == ["AF_UNIX AF_NETLINK"])
        #expect(s["SystemCallFilter"] == ["@system-service", "~@privileged @resources"])
        #expect(s["UMask"] == ["0077"] && s["ProcSubset"] == ["pid"] && s["PrivateMounts"] == ["yes"])
        #expect(s["ProtectSystem"] == ["strict"] && s["ProtectHome"] == ["yes"] && s["PrivateTmp"] == ["yes"])
        #expect(s["NoNewPrivileges"] == ["yes"])
        // These would break the daemon: read-only /sys, no udev events, no real peer uids.
        #expect(s["ProtectKernelTunables"] == nil && s["PrivateNetwork"] == nil && s["PrivateUsers"] == nil)
        #expect(s["PrivateDevices"] == nil)
        #expect(s["ExecStart"] == ["/usr/local/bin/carouseld --config /etc/carouseld/carouseld.conf"])
    }

    @Test func socketSettings() throws {
        let s = try Self.settings("carouseld.socket")
        #expect(s["ListenStream"] == ["/run/carouseld/carouseld.sock"])
        #expect(s["SocketMode"] == ["0660"] && s["SocketGroup"] == ["carouseld"])
        // The socket path matches the daemon's default.
        #expect(s["ListenStream"]?.first == DaemonConfiguration.defaults.server.socketPath)
    }

    @Test func sysusersEntryCreatesTheServiceUser() throws {
        let text = try #require(readTextFile(Self.root + "/systemd/sysusers.d/carouseld.conf"))
        let entries = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { Array($0.split(separator: " ", omittingEmptySubsequences: true).prefix(3)) }
        // The service user, and the default control_group the bridges' users join.
        #expect(entries == [["u", "carouseld", "-"], ["g", "carouseld-control", "-"]])
    }

    /// systemd 252 has no `udevadm verify`: check the rule's structure and every attribute the
    /// daemon writes (docs/SERVICE.md "udev rule and permissions") here.
    @Test func udevRuleCoversTheDeviceAndTheWrittenAttributes() throws {
        let text = try #require(readTextFile(Self.root + "/systemd/60-carouseld.rules"))
        let rules = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(rules.contains("SUBSYSTEM!=\"iio\", GOTO=\"carouseld_end\""))
        #expect(rules.contains("TEST==\"in_accel_x_raw\", GOTO=\"carouseld_motion_sensor\""))
        #expect(rules.contains("TEST==\"in_anglvel_x_raw\", GOTO=\"carouseld_motion_sensor\""))
        #expect(rules.contains("TAG+=\"systemd\""))
        #expect(rules.contains("GROUP=\"carouseld\", MODE=\"0660\""))
        #expect(rules.filter { $0.hasPrefix("LABEL=") } == ["LABEL=\"carouseld_motion_sensor\"", "LABEL=\"carouseld_end\""])
        let run = try #require(rules.first { $0.hasPrefix("RUN+=") })
        for attribute in ["sampling_frequency", "in_accel_sampling_frequency", "current_timestamp_clock",
                          "trigger/current_trigger", "buffer/enable", "buffer/length", "scan_elements/*_en"] {
            #expect(run.contains(" \(attribute) "), "RUN+= does not cover \(attribute)")
        }
        #expect(run.contains("chgrp carouseld") && run.contains("chmod g+w"))
        // udev substitutes `$$` to `$` and `%p` to the devpath; unescaped `$a` would be a udev error.
        #expect(run.contains(" $$a ") && !run.contains(" $a "))
    }
}
