import CarouselConfig
import CarouselEngine
import CarouselTestSupport
import Testing
@testable import CarouselDaemon

/// The `[carousel]` keys of autoplay, free scroll, groups, alignment and containment, and
/// `[style.custom]`: bad values are refused with `file:line`, the key and what is allowed, and
/// good ones reach the engine configuration.
@Suite struct ConfigFeatureKeysTests {
    static let path = "/etc/carouseld/carouseld.conf"

    @Test(arguments: [
        ("[carousel]\nautoplay_s = 0.05\n", 2, "carousel", "autoplay_s", "0.05", "0 (off) or a number from 0.1 to 86400 (seconds)"),
        ("[carousel]\nautoplay_s = 86401\n", 2, "carousel", "autoplay_s", "86401", "0 (off) or a number from 0.1 to 86400 (seconds)"),
        ("[carousel]\nautoplay_s = -1\n", 2, "carousel", "autoplay_s", "-1", "0 (off) or a number from 0.1 to 86400 (seconds)"),
        ("[carousel]\nautoplay_s = nan\n", 2, "carousel", "autoplay_s", "nan", "0 (off) or a number from 0.1 to 86400 (seconds)"),
        ("[carousel]\n\nautoplay_resume_s = soon\n", 3, "carousel", "autoplay_resume_s", "soon", "a number from 0 to 86400 (seconds)"),
        ("[carousel]\nautoplay_step = 0\n", 2, "carousel", "autoplay_step", "0", "a non-zero whole number from -1000 to 1000 (snap positions)"),
        ("[carousel]\nautoplay_step = 1001\n", 2, "carousel", "autoplay_step", "1001", "a non-zero whole number from -1000 to 1000 (snap positions)"),
        ("[carousel]\nautoplay_step = 1.5\n", 2, "carousel", "autoplay_step", "1.5", "a non-zero whole number from -1000 to 1000 (snap positions)"),
        ("[carousel]\npaging = loose\n", 2, "carousel", "paging", "loose", "one of nearest, momentum, single, distance, free"),
        ("[carousel]\nfree_sticky_velocity = -5\n", 2, "carousel", "free_sticky_velocity", "-5",
         "a number from 0 to 1000000 (points per second, 0 = never snap)"),
        ("[carousel]\ngroup_size = 0\n", 2, "carousel", "group_size", "0", "a whole number from 1 to 1000000000 (items)"),
        ("[carousel]\nalign = left\n", 2, "carousel", "align", "left", "one of start, center, end"),
        ("[carousel]\ncontain = sometimes\n", 2, "carousel", "contain", "sometimes", "yes or no (also true/false, on/off, 1/0)"),
        ("[style.custom]\nnext_opacity = 1.5\n", 2, "style.custom", "next_opacity", "1.5", "a number that must lie in [0, 1]"),
        ("[style.custom]\nprev_rotate_y = 4000\n", 2, "style.custom", "prev_rotate_y", "4000", "a number that must lie within ±3600 degrees"),
        ("[style.custom]\nprev_translate_x = far\n", 2, "style.custom", "prev_translate_x", "far", "a number that must lie within ±1000 pitches"),
        ("[style.custom]\nlimit = 0\n", 2, "style.custom", "limit", "0", "a number that must be > 0 and ≤ 1000 items"),
        ("[style.custom]\nperspective = 0.5\n", 2, "style.custom", "perspective", "0.5",
         "a number that must be 0 (none) or lie in [1, 1000000] points"),
    ])
    func badValueNamesFileLineAndKey(text: String, line: Int, section: String, key: String, value: String, expected: String) {
        #expect(throws: ConfigurationError.badValue(path: Self.path, line: line, section: section, key: key, value: value,
                                                    expected: expected)) {
            try DaemonConfiguration.parse(text: text, path: Self.path)
        }
    }

    @Test func errorTextNamesFileLineSectionAndKey() {
        do {
            _ = try DaemonConfiguration.parse(text: "[carousel]\ncount = 5\n\n[style.custom]\nnext_scale = -1\n", path: Self.path)
            Issue.record("accepted")
        } catch {
            #expect(error.description == "/etc/carouseld/carouseld.conf:5: [style.custom] next_scale: bad value '-1': expected a number that must lie in [0, 100]")
        }
    }

    @Test func unknownCustomKeyIsRefusedWithTheKnownOnes() {
        do {
            _ = try DaemonConfiguration.parse(text: "[style.custom]\nnext_skew = 3\n", path: Self.path)
            Issue.record("accepted")
        } catch {
            #expect(error.description.hasPrefix("/etc/carouseld/carouseld.conf:2: [style.custom] unknown key 'next_skew'; known keys: prev_translate_x, prev_translate_y,"))
        }
    }

    /// Every new setting reaches the engine's configuration, which its own `validate()` accepts.
    @Test func settingsReachTheEngine() throws {
        let text = """
        [carousel]
        count = 9
        style = custom
        paging = free
        deceleration_rate = 0.99
        free_sticky_velocity = 80
        group_size = 3
        align = end
        contain = yes
        autoplay_s = 7
        autoplay_resume_s = 2.5
        autoplay_step = -1
        [style.custom]
        next_rotate_y = -40
        next_scale = 0.75
        limit = 3
        perspective = 0
        """
        let c = EngineSetup.carouselConfiguration(try DaemonConfiguration.parse(text: text, path: Self.path))
        try c.validate()
        #expect(c.paging == .free(decelerationRate: 0.99, stickyVelocity: 80))
        #expect(c.groupSize == 3)
        #expect(c.geometry.align == .end)
        #expect(c.geometry.contain)
        #expect(c.autoplay == AutoplaySettings(enabled: true, intervalSeconds: 7, resumeSeconds: 2.5, step: -1, paused: false))
        #expect(c.style == .custom(CustomStyle(previous: CustomSide(translateX: -1),
                                               next: CustomSide(translateX: 1, rotateY: -40, scale: 0.75),
                                               limit: 3, perspective: 0)))
        // Defaults: autoplay off, every item its own page, centered, not contained.
        let d = EngineSetup.carouselConfiguration(.defaults)
        #expect(d.autoplay.isOn == false && d.groupSize == 1 && d.geometry.align == .center && !d.geometry.contain)
    }
}

/// `carouseld --check-config` on the new keys: a good file passes, a bad value is refused with
/// 78 and `file:line` naming the section and key.
@Suite struct CheckConfigFeatureKeysTests {
    static func check(_ text: String) -> ServiceTestSupport.ProcessResult {
        let path = ServiceTestSupport.temporaryDirectory() + "/features.conf"
        #expect(ServiceTestSupport.writeFile(path, text))
        return ServiceTestSupport.run([TestPaths.product("carouseld"), "--check-config", "-c", path])
    }

    @Test func goodFeatureKeysPass() {
        let result = Self.check("[carousel]\nstyle = custom\npaging = free\nfree_sticky_velocity = 50\ngroup_size = 2\nalign = start\ncontain = yes\nautoplay_s = 5\nautoplay_resume_s = 3\nautoplay_step = -1\n[style.custom]\nnext_rotate_y = -40\nlimit = 2\n")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasSuffix("configuration OK\n"))
    }

    @Test func aBadCustomNumberIsRefusedWithItsLine() {
        let result = Self.check("[carousel]\nstyle = custom\n\n[style.custom]\nnext_rotate_y = -40\nlimit = 0\n")
        #expect(result.status == 78)
        #expect(result.standardError.hasSuffix("features.conf:6: [style.custom] limit: bad value '0': expected a number that must be > 0 and ≤ 1000 items\n"))
    }
}
