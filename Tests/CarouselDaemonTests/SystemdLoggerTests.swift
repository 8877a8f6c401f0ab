import Testing
@testable import CarouselDaemon

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
}
