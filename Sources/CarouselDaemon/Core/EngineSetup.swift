import CarouselEngine
import MotionFusion

/// Maps the `[carousel]`, `[tilt]` and `[filter]` settings of a `DaemonConfiguration` onto the
/// engine's and the estimator's own types (the configuration model does not depend on them).
enum EngineSetup {
    /// The engine configuration for `[carousel]` and `[tilt]`; `initialIndex` 0.
    static func carouselConfiguration(_ c: DaemonConfiguration) -> CarouselConfiguration {
        let s = c.carousel
        let geometry = CarouselGeometry(
            viewport: CarouselSize(width: s.viewportWidth, height: s.viewportHeight),
            item: CarouselSize(width: s.itemWidth, height: s.itemHeight),
            spacing: s.spacing,
            axis: s.axis == .vertical ? .vertical : .horizontal,
            direction: s.direction == .rtl ? .rightToLeft : .leftToRight,
            count: s.count, cyclic: s.cyclic)
        let style: LayoutStyle
        switch s.style {
        case .linear: style = .linear(LinearStyle())
        case .zoom: style = .zoom(ZoomStyle())
        case .stacked: style = .stacked
        case .coverFlow: style = .coverFlow(CoverFlowStyle())
        case .rotary: style = .rotary(RingStyle())
        case .cylinder: style = .cylinder(RingStyle())
        }
        let paging: PagingPolicy
        switch s.paging {
        case .nearest: paging = .nearest
        case .momentum: paging = .momentum(decelerationRate: s.decelerationRate, maxItemsPerFling: nil)
        // INTERFACES §1 defaults: 500 pt/s (the seed's 0.5 pt/ms) and 1/8 of a pitch.
        case .single: paging = .single(velocityThreshold: 500)
        case .distance: paging = .distance(fraction: 0.125)
        }
        let t = c.tilt
        return CarouselConfiguration(
            geometry: geometry, initialIndex: 0, style: style, paging: paging,
            tilt: .init(enabled: t.enabled, mode: t.mode == .position ? .position : .velocity,
                        deadZoneDegrees: t.deadZoneDeg, maxDegrees: t.maxDeg, maxItemsPerSecond: t.maxItemsPerSecond))
    }

    /// The estimator settings of `[filter]` (a 0 cutoff or rejection angle turns them off).
    static func estimatorConfiguration(_ c: DaemonConfiguration) -> AttitudeEstimator.Configuration {
        let f = c.filter
        let method: EstimationMethod
        switch f.method {
        case .inertial: method = .inertial
        case .fusion: method = .fusion
        case .complementary: method = .complementary
        case .accel: method = .accel
        }
        return AttitudeEstimator.Configuration(
            method: method, gain: f.gain, accelerationRejectionDegrees: f.accelRejectionDeg,
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
            axis: axis, displayRotation: DisplayRotation(rawValue: c.tilt.displayRotation) ?? .degrees0,
            scrollsVertically: c.carousel.axis == .vertical,
            neutralRoll: calibration.neutralRoll, neutralPitch: calibration.neutralPitch,
            neutralTrackingSeconds: c.tilt.neutralTrackingSeconds > 0 ? c.tilt.neutralTrackingSeconds : nil)
    }
}
