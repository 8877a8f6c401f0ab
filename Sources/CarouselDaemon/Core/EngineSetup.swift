import CarouselConfig
import CarouselEngine
import MotionFusion

/// Builds the engine's and the estimator's configurations from a `DaemonConfiguration`: the
/// `[carousel]` style and paging names map onto the engine's types; the tilt mapping, axis,
/// direction and the `[filter]` method already are the engine's and estimator's types.
enum EngineSetup {
    /// The engine configuration for `[carousel]`, `[style.custom]` and `[tilt]`; `initialIndex` 0.
    static func carouselConfiguration(_ c: DaemonConfiguration) -> CarouselConfiguration {
        let s = c.carousel
        let geometry = CarouselGeometry(
            viewport: CarouselSize(width: s.viewportWidth, height: s.viewportHeight),
            item: CarouselSize(width: s.itemWidth, height: s.itemHeight),
            spacing: s.spacing,
            axis: s.axis, direction: s.direction,
            count: s.count, cyclic: s.cyclic, align: s.align, contain: s.contain)
        let style: LayoutStyle
        switch s.style {
        case .linear: style = .linear(LinearStyle())
        case .zoom: style = .zoom(ZoomStyle())
        case .stacked: style = .stacked
        case .coverFlow: style = .coverFlow(CoverFlowStyle())
        case .rotary: style = .rotary(RingStyle())
        case .cylinder: style = .cylinder(RingStyle())
        case .custom: style = .custom(c.customStyle)
        }
        let paging: PagingPolicy
        switch s.paging {
        case .nearest: paging = .nearest
        case .momentum: paging = .momentum(decelerationRate: s.decelerationRate, maxItemsPerFling: nil)
        // Defaults of docs/ENGINE.md "Paging": 500 pt/s (the seed's 0.5 pt/ms) and 1/8 of a pitch.
        case .single: paging = .single(velocityThreshold: 500)
        case .distance: paging = .distance(fraction: 0.125)
        case .free: paging = .free(decelerationRate: s.decelerationRate, stickyVelocity: s.freeStickyVelocity)
        }
        let autoplay = AutoplaySettings(intervalSeconds: s.autoplaySeconds, resumeSeconds: s.autoplayResumeSeconds,
                                        step: s.autoplayStep)
        return CarouselConfiguration(geometry: geometry, initialIndex: 0, style: style, paging: paging,
                                     tilt: c.tilt.mapping, autoplay: autoplay, groupSize: s.groupSize)
    }

    /// The estimator settings of `[filter]` (a 0 cutoff or rejection angle turns them off).
    static func estimatorConfiguration(_ c: DaemonConfiguration) -> AttitudeEstimator.Configuration {
        let f = c.filter
        return AttitudeEstimator.Configuration(
            method: f.method, gain: f.gain, accelerationRejectionDegrees: f.accelRejectionDeg,
            lowpassCutoffHz: f.lowpassHz > 0 ? f.lowpassHz : nil)
    }

    /// The mapper of `[tilt] axis`, `display_rotation`, `neutral_tracking_s`, with the neutral
    /// attitude of `calibration`.
    static func tiltMapper(_ c: DaemonConfiguration, calibration: Calibration) -> TiltInputMapper {
        let axis: TiltAxis
        switch c.tilt.axis {
        case .auto: axis = .auto
        case .roll: axis = .roll
        case .pitch: axis = .pitch
        }
        return TiltInputMapper(
            axis: axis, displayRotation: c.tilt.displayRotation.flatMap(DisplayRotation.init(rawValue:)) ?? .degrees0,
            scrollsVertically: c.carousel.axis == .vertical,
            neutralRoll: calibration.neutralRoll, neutralPitch: calibration.neutralPitch,
            neutralTrackingSeconds: c.tilt.neutralTrackingSeconds > 0 ? c.tilt.neutralTrackingSeconds : nil)
    }
}
