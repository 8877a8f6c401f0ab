import IIOSensors
import Testing
@testable import CarouselDaemon
@testable import CarouselService

/// The journald-style logger.
@Suite struct SystemdLoggerTests {
    final class Lines: @unchecked Sendable { var all: [String] = [] }

    @Test func journalPrefixesAndThreshold() {
        let lines = Lines()
        let logger = Logger(threshold: .info, format: .journal) { lines.all.append($0) }
        logger.error("socket busy")
        logger.warning("calibration for another sensor")
        logger.notice("reloaded")
        logger.info("client 3 connected")
        logger.debug("sample 17")
        #expect(lines.all == ["<3>socket busy\n", "<4>calibration for another sensor\n", "<5>reloaded\n",
                              "<6>client 3 connected\n"])
    }

    @Test func debugThresholdAndPlainFormat() {
        let lines = Lines()
        let logger = Logger(threshold: .debug, format: .plain) { lines.all.append($0) }
        logger.debug("sample 17")
        logger.warning("two\nlines\r")
        #expect(lines.all == ["carouseld: debug: sample 17\n", "carouseld: warning: two\\nlines\\r\n"])
    }

    @Test func messagesBelowTheThresholdAreNotBuilt() {
        final class Counter: @unchecked Sendable { var built = 0 }
        let counter = Counter()
        let logger = Logger(threshold: .warning) { _ in }
        logger.info({ counter.built += 1; return "x" }())
        #expect(counter.built == 0)
        #expect(logger.isEnabled(.error) && !logger.isEnabled(.notice))
        #expect(LogLevel.error < LogLevel.debug)
    }

    /// A sensor source reports with a level, and the daemon's logger keeps it: a warning is
    /// `<4>` for journald and `warning:` on a terminal, never an info line wrapping a prefix.
    @Test func aSensorWarningKeepsItsLevelInJournalAndForegroundFormats() throws {
        let message = "no sensor matches 'carouseld-test-no-such-sensor'; waiting for a sensor to be plugged in"
        for (format, prefix) in [(Logger.Format.journal, "<4>"), (.plain, "carouseld: warning: ")] {
            let lines = Lines()
            let logger = Logger(threshold: .info, format: format) { lines.all.append($0) }
            let source = IIOSensorSource(
                configuration: IIOSourceConfiguration(device: "carouseld-test-no-such-sensor", watchHotplug: false),
                log: logger.sink)
            try source.start()
            source.stop()
            #expect(source.status == .absent)
            #expect(lines.all == [prefix + message + "\n"])
        }
    }
}
