import CarouselMQTT
import CarouselProtocol
import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `[daemon]`, `[broker]`, `[device]`, `[publish]`, `[homeassistant]`: defaults, derived
/// values (port, client id, device id) and errors that name file:line, section and key.
@Suite struct BridgeConfigurationTests {
    static func parse(_ text: String, host: String = "kiosk-1") throws(BridgeConfigurationError) -> BridgeConfiguration {
        try BridgeConfigurationLoader.parse(text, path: "/etc/carouseld/carousel-mqtt.conf", hostName: host)
    }

    static func error(_ text: String) -> BridgeConfigurationError? {
        do { _ = try parse(text); return nil } catch { return error }
    }

    /// The help names the installed pages and the installed configuration file, not the
    /// source tree's docs/ and configs/.
    @Test func helpNamesOnlyInstalledFiles() {
        #expect(HelpReferences.problems(in: BridgeCommandLine.help) == [])
        #expect(BridgeCommandLine.help.contains("See /usr/share/doc/carouseld/MQTT.md.gz."))
        #expect(!BridgeCommandLine.help.contains("configs/"))
    }

    @Test func defaultsOfAnEmptyFile() throws {
        let c = try Self.parse("")
        #expect(c.socketPath == "/run/carouseld/carouseld.sock")
        #expect(c.brokerHost == "localhost")
        #expect(c.effectivePort == 1883)
        #expect(!c.usesTLS)
        #expect(c.deviceID == "kiosk-1")
        #expect(c.effectiveClientID == "carousel-mqtt-kiosk-1")
        #expect(c.topicPrefix == "carouseld")
        #expect(c.qos == 1)
        #expect(c.keepaliveSeconds == 60)
        #expect(c.positionMaximumRateHz == 2)
        #expect(c.homeAssistantEnabled)
        #expect(c.discoveryPrefix == "homeassistant")
        #expect(c.topics.state == "carouseld/kiosk-1/state")
        #expect(c.topics.availability == "carouseld/kiosk-1/availability")
    }

    @Test func theShippedFileIsTheDefaults() throws {
        let text = try #require(readTextFile(TestPaths.packageRoot + "/configs/carousel-mqtt.conf"))
        #expect(try Self.parse(text) == (try Self.parse("")))
        // Every key of the loader is documented in the shipped file (commented out, with its default).
        for key in ["socket", "host", "port", "username", "password_file", "ca_file", "cert_file", "key_file",
                    "client_id", "qos", "keepalive_s", "id", "topic_prefix", "position_max_hz", "enabled",
                    "discovery_prefix", "reconnect_min_s", "reconnect_max_s", "liveness_timeout_s", "republish_min_interval_s"] {
            #expect(text.contains("\n;\(key) ="), "configs/carousel-mqtt.conf does not document \(key)")
        }
    }

    @Test func tlsTurnsOnWithACAFileAndMovesThePortTo8883() throws {
        let c = try Self.parse("[broker]\nca_file = /etc/ssl/ca.pem\n")
        #expect(c.usesTLS)
        #expect(c.effectivePort == 8883)
        #expect(try Self.parse("[broker]\nca_file = /etc/ssl/ca.pem\nport = 9999\n").effectivePort == 9999)
    }

    @Test func deviceIDIsReducedToTopicSafeCharacters() throws {
        #expect(try Self.parse("[device]\nid = Kiosk #3.lobby/ä\n").deviceID == "Kiosk__3_lobby__")
        #expect(try Self.parse("", host: "pi.local").deviceID == "pi_local")
        #expect(try Self.parse("[device]\nid = a\n[broker]\nclient_id = bridge-a\n").effectiveClientID == "bridge-a")
        #expect(DeviceIdentifier.sanitized("ok_-09AZaz") == "ok_-09AZaz")
    }

    @Test func everyKeyIsRead() throws {
        let c = try Self.parse("""
        [daemon]
        socket = /tmp/d.sock
        reconnect_min_s = 0.2
        reconnect_max_s = 2
        liveness_timeout_s = 3.5
        [broker]
        host = 192.0.2.7
        port = 1884
        username = kiosk
        password_file = /etc/carouseld/mqtt.password
        ca_file = /etc/ca.pem
        cert_file = /etc/c.pem
        key_file = /etc/k.pem
        client_id = x
        qos = 2
        keepalive_s = 30
        reconnect_min_s = 0.5
        reconnect_max_s = 8
        [device]
        id = lobby
        topic_prefix = site/a
        [publish]
        position_max_hz = 0.5
        [homeassistant]
        enabled = no
        discovery_prefix = ha
        republish_min_interval_s = 30
        """)
        #expect(c.socketPath == "/tmp/d.sock")
        #expect(c.daemonReconnectMinimumSeconds == 0.2 && c.daemonReconnectMaximumSeconds == 2)
        #expect(c.brokerHost == "192.0.2.7" && c.effectivePort == 1884)
        #expect(c.username == "kiosk" && c.passwordFile == "/etc/carouseld/mqtt.password")
        #expect(c.caFile == "/etc/ca.pem" && c.certificateFile == "/etc/c.pem" && c.keyFile == "/etc/k.pem")
        #expect(c.effectiveClientID == "x" && c.qos == 2 && c.keepaliveSeconds == 30)
        #expect(c.brokerReconnectMinimumSeconds == 0.5 && c.brokerReconnectMaximumSeconds == 8)
        #expect(c.topics.state == "site/a/lobby/state")
        #expect(c.positionMaximumRateHz == 0.5)
        #expect(!c.homeAssistantEnabled && c.discoveryPrefix == "ha")
        #expect(c.daemonLivenessTimeoutSeconds == 3.5 && c.discoveryRepublishMinimumIntervalSeconds == 30)
    }

    /// `--check-config` refuses what the broker or libmosquitto would refuse later: prefixes
    /// under `$` (`$SYS/…`, `$share/…` are the broker's, so nothing would arrive) and text that
    /// libmosquitto calls "Malformed UTF-8" (U+0085, U+FFFF), which would stop the bridge with 78.
    @Test func prefixesAndNamesTheBrokerWouldRefuse() {
        let expected = "is not topic levels such as carouseld or site/lobby (no +, #, empty level or leading $)"
        for (key, value) in [("topic_prefix", "$SYS/kiosks"), ("topic_prefix", "$share/g/x"), ("discovery_prefix", "$SYS")] {
            let section = key == "topic_prefix" ? "device" : "homeassistant"
            #expect(Self.error("[\(section)]\n\(key) = \(value)\n")?.message == "'\(value)' \(expected)", "\(value)")
        }
        // Swift string literals refuse non-characters: built from their scalar values.
        let scalars: [[UInt32]] = [[0x61, 0x85, 0x62], [0x61, 0xFFFF], [0x78, 0x9F], [0xFDD0]]
        for bad in scalars.map({ String(String.UnicodeScalarView($0.compactMap(Unicode.Scalar.init))) }) {
            #expect(Self.error("[device]\ntopic_prefix = \(bad)\n")?.key == "topic_prefix", "\(bad.unicodeScalars.map(\.value))")
            #expect(Self.error("[homeassistant]\ndiscovery_prefix = \(bad)\n")?.key == "discovery_prefix")
            #expect(Self.error("[broker]\nclient_id = \(bad)\n")?.key == "client_id")
            #expect(Self.error("[broker]\nusername = \(bad)\n")?.key == "username")
        }
        // What MQTT allows stays allowed: a `$` inside a level, non-ASCII letters.
        #expect(Self.error("[device]\ntopic_prefix = site/a$b/ü\n") == nil)
    }

    /// `kiosk.lobby` and `kiosk/lobby` both reduce to `kiosk_lobby`, and two such devices knock
    /// each other off the broker (one client id): the id as written is kept for a warning.
    @Test func anIDThatIsReducedIsRememberedForAWarning() throws {
        let dotted = try Self.parse("[device]\nid = kiosk.lobby\n")
        #expect(dotted.deviceID == "kiosk_lobby" && dotted.deviceIDAsWritten == "kiosk.lobby")
        #expect(try Self.parse("[device]\nid = kiosk/lobby\n").deviceIDAsWritten == "kiosk/lobby")
        #expect(try Self.parse("[device]\nid = kiosk_lobby\n").deviceIDAsWritten == nil)
        #expect(try Self.parse("", host: "pi.local").deviceIDAsWritten == "pi.local")
        #expect(try Self.parse("", host: "pi").deviceIDAsWritten == nil)
    }

    @Test func errorsNameFileLineSectionAndKey() {
        let path = "/etc/carouseld/carousel-mqtt.conf"
        #expect(Self.error("[broker]\nhost = b\nqos = 3\n")?.description
                == "\(path):3: [broker] qos: '3' is not a whole number from 0 to 2")
        #expect(Self.error("[broker]\nport = 0\n")?.description
                == "\(path):2: [broker] port: '0' is not a whole number from 1 to 65535")
        #expect(Self.error("[publish]\nposition_max_hz = nan\n")?.description
                == "\(path):2: [publish] position_max_hz: 'nan' is not a number from 0 to 60 (Hz)")
        #expect(Self.error("[broker]\nhots = x\n")?.description
                == "\(path):2: [broker] hots: unknown key; [broker] has host, port, username, password_file, ca_file, cert_file, key_file, client_id, qos, keepalive_s, reconnect_min_s, reconnect_max_s")
        #expect(Self.error("\n[mqtt]\n")?.description
                == "\(path):2: [mqtt]: unknown section; known sections: [daemon], [broker], [device], [publish], [homeassistant]")
        #expect(Self.error("[device]\nid = a\nid = b\n")?.description == "\(path):3: [device] id: repeated (first set on line 2)")
        #expect(Self.error("[device]\ntopic_prefix = a/+/b\n")?.line == 2)
        #expect(Self.error("[device]\ntopic_prefix = /a\n")?.key == "topic_prefix")
        #expect(Self.error("[daemon]\nsocket = relative.sock\n")?.message == "'relative.sock' is not an absolute path")
        #expect(Self.error("[homeassistant]\nenabled = maybe\n")?.message == "'maybe' is not yes or no (also true/false, on/off, 1/0)")
        #expect(Self.error("[device]\nid = ###\n") == nil)  // becomes ___
        #expect(Self.error("host = b\n")?.description == "\(path):1: host: key before any [section]")
        #expect(Self.error("[broker]\nhost\n")?.line == 2)
        // Every key indented: refused at the second, which is this line's own problem.
        #expect(Self.error("[broker]\n  host = x\n  port = 1883\n")?.description
                == "\(path):3: line starts with whitespace: keys must not be indented (libinih would read this line as more "
                + "of the value of [broker] host above); start it at the beginning of the line")
        // A host or a name in Latin-1 would silently become another one.
        #expect(Self.error(String(decoding: Array("[broker]\nhost = caf".utf8) + [0xE9, 0x0A], as: UTF8.self))?.description
                == "\(path):2: [broker] host: the value is not UTF-8 text (a byte that is not UTF-8, shown as U+FFFD, "
                + "would silently change it); write the file in UTF-8")
        #expect(Self.error("[broker]\nqos = 3\n")?.exitStatus == .configuration)
    }

    @Test func rulesBetweenKeys() {
        #expect(Self.error("[broker]\nca_file = /c\ncert_file = /a\n")?.description
                == "/etc/carouseld/carousel-mqtt.conf:3: [broker] cert_file: cert_file and key_file go together (TLS client authentication)")
        #expect(Self.error("[broker]\ncert_file = /a\nkey_file = /b\n")?.message == "needs ca_file: TLS is on only when ca_file is set")
        #expect(Self.error("[broker]\npassword_file = /p\n")?.description
                == "/etc/carouseld/carousel-mqtt.conf:2: [broker] password_file: needs username")
        #expect(Self.error("[broker]\nreconnect_min_s = 5\nreconnect_max_s = 1\n")?.line == 3)
    }

    @Test func aMissingFileIsExit66() {
        do {
            _ = try BridgeConfigurationLoader.load(path: "/nonexistent/carousel-mqtt.conf", hostName: "h")
            Issue.record("no error")
        } catch {
            #expect(error.exitStatus == .noInput)
            #expect(error.description == "/nonexistent/carousel-mqtt.conf: cannot read the configuration: no such file")
        }
    }

    /// A password file that cannot be read is named with the line that sets it, as every other
    /// configuration error is.
    @Test func anUnreadablePasswordFileNamesItsLine() throws {
        let c = try Self.parse("[broker]\nusername = kiosk\n\npassword_file = /nonexistent/mqtt.password\n")
        #expect(c.passwordFileLine == 4)
        let passwordFile = try #require(c.passwordFile)
        do {
            _ = try BridgeConfigurationLoader.readPassword(passwordFile, configPath: "/etc/carouseld/carousel-mqtt.conf",
                                                           line: c.passwordFileLine)
            Issue.record("a missing password file was read")
        } catch {
            #expect(error.description
                    == "/etc/carouseld/carousel-mqtt.conf:4: [broker] password_file: cannot read /nonexistent/mqtt.password: no such file")
            #expect(error.exitStatus == .configuration)  // 78: the unit does not restart on it (docs/MQTT.md)
        }
    }

    @Test func thePasswordIsTheFirstLine() throws {
        let path = TestTemp.path("password")
        try TestTemp.write("s3cret pass\r\nsecond line\n", to: path)
        #expect(try BridgeConfigurationLoader.readPassword(path, configPath: "c.conf") == "s3cret pass")
        try TestTemp.write("\n", to: path)
        #expect(throws: BridgeConfigurationError.self) { try BridgeConfigurationLoader.readPassword(path, configPath: "c.conf") }
        // A password saved in Latin-1 ('é' as 0xE9) was sent as "caf\u{FFFD}": refused, saying why.
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        #expect(([0x63, 0x61, 0x66, 0xE9, 0x0A] as [UInt8]).withUnsafeBytes { write(fd, $0.baseAddress, 5) } == 5)
        close(fd)
        do {
            _ = try BridgeConfigurationLoader.readPassword(path, configPath: "c.conf")
            Issue.record("a Latin-1 password was accepted")
        } catch {
            #expect(error.description == "c.conf: [broker] password_file: the first line of \(path) is not UTF-8 text; write the password in UTF-8")
        }
    }
}
