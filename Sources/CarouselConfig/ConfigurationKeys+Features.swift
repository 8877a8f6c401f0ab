import CarouselEngine

/// The `[carousel]` keys of autoplay, free scroll, group paging, alignment and contained ends,
/// and the `[style.custom]` section (one key per `CustomStyleParameter`, whose table holds the
/// names and ranges the protocol's `set_style` uses too).
extension ConfigurationKeys {
    static let carouselFeatures: [ConfigurationKey] = [
        .init(section: "carousel", name: "free_sticky_velocity") { v, c throws(ConfigurationValueProblem) in
            c.carousel.freeStickyVelocity = try V.number(v, in: 0...CarouselLimits.maximumSpeed,
                                                         unit: "points per second, 0 = never snap") },
        .init(section: "carousel", name: "group_size") { v, c throws(ConfigurationValueProblem) in
            c.carousel.groupSize = try V.integer(v, in: 1...CarouselLimits.maximumCount, unit: "items") },
        .init(section: "carousel", name: "align") { v, c throws(ConfigurationValueProblem) in
            c.carousel.align = try V.choice(v, ItemAlignment.self) },
        .init(section: "carousel", name: "contain") { v, c throws(ConfigurationValueProblem) in
            c.carousel.contain = try V.bool(v) },
        .init(section: "carousel", name: "autoplay_s") { v, c throws(ConfigurationValueProblem) in
            let seconds = try V.zeroOrNumber(v, in: AutoplaySettings.minimumIntervalSeconds...AutoplaySettings.maximumSeconds,
                                             off: "off", unit: "seconds")
            c.carousel.autoplaySeconds = seconds },
        .init(section: "carousel", name: "autoplay_resume_s") { v, c throws(ConfigurationValueProblem) in
            c.carousel.autoplayResumeSeconds = try V.number(v, in: 0...AutoplaySettings.maximumSeconds, unit: "seconds") },
        .init(section: "carousel", name: "autoplay_step") { v, c throws(ConfigurationValueProblem) in
            let most = AutoplaySettings.maximumStep
            let problem = ConfigurationValueProblem(expected: "a non-zero whole number from -\(most) to \(most) (snap positions)")
            let step: Int
            do throws(ConfigurationValueProblem) { step = try V.integer(v, in: -most...most, unit: "") } catch { throw problem }
            guard step != 0 else { throw problem }
            c.carousel.autoplayStep = step },
    ]

    static let styleCustom: [ConfigurationKey] = CustomStyleParameter.allCases.map { parameter in
        .init(section: "style.custom", name: parameter.wireName) { v, c throws(ConfigurationValueProblem) in
            let value: Double
            do throws(ConfigurationValueProblem) {
                value = try V.number(v, in: -1e6...1e6, unit: "")
            } catch {
                throw ConfigurationValueProblem(expected: "a number that " + parameter.requirement)
            }
            guard parameter.accepts(value) else {
                throw ConfigurationValueProblem(expected: "a number that " + parameter.requirement)
            }
            parameter.set(value, in: &c.customStyle) }
    }
}
