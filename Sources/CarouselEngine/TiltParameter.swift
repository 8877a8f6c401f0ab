/// The numeric tilt settings, each with its names and its one allowed range.
///
/// The table every surface reads: the configuration file's `[tilt]` keys and the `set_tilt`
/// request use `wireName` (snake_case), `carouselctl simulate` scenarios use `scenarioName`
/// (camelCase, docs/ENGINE.md "carouselctl simulate: scenarios"), and `TiltSettings.check()` applies `range`
/// for all of them.
public enum TiltParameter: String, CaseIterable, Sendable {
    /// `TiltSettings.deadZoneDegrees`: |roll| at or below it does nothing, degrees.
    case deadZone = "dead_zone_deg"
    /// `TiltSettings.maxDegrees`: the roll at which speed or displacement saturates, degrees;
    /// must be greater than the dead zone.
    case maxAngle = "max_deg"
    /// `TiltSettings.maxItemsPerSecond`: the speed at `maxDegrees` in velocity mode.
    case maxItemsPerSecond = "max_items_per_second"

    /// The configuration key and request field: `dead_zone_deg`, `max_deg`, `max_items_per_second`.
    public var wireName: String { rawValue }

    /// The scenario key: `deadZoneDeg`, `maxDeg`, `maxItemsPerSecond`.
    public var scenarioName: String {
        switch self {
        case .deadZone: return "deadZoneDeg"
        case .maxAngle: return "maxDeg"
        case .maxItemsPerSecond: return "maxItemsPerSecond"
        }
    }

    /// The allowed values. Roll is within ±90° (docs/FUSION.md "1. Conventions"), so a dead zone reaches at most 89°
    /// and the saturation angle 90°.
    public var range: ClosedRange<Double> {
        switch self {
        case .deadZone: return 0...89
        case .maxAngle: return 1...90
        case .maxItemsPerSecond: return 0.01...100
        }
    }

    /// The unit, for messages: `degrees` or `items per second`.
    public var unit: String {
        self == .maxItemsPerSecond ? "items per second" : "degrees"
    }

    /// This parameter's value in `settings`.
    public func value(in settings: TiltSettings) -> Double {
        switch self {
        case .deadZone: return settings.deadZoneDegrees
        case .maxAngle: return settings.maxDegrees
        case .maxItemsPerSecond: return settings.maxItemsPerSecond
        }
    }

    /// Sets this parameter in `settings` (unchecked: call `TiltSettings.check()` after).
    public func set(_ value: Double, in settings: inout TiltSettings) {
        switch self {
        case .deadZone: settings.deadZoneDegrees = value
        case .maxAngle: settings.maxDegrees = value
        case .maxItemsPerSecond: settings.maxItemsPerSecond = value
        }
    }
}

/// Why tilt settings were refused by `TiltSettings.check()`.
public enum TiltSettingsError: Error, Sendable, Equatable {
    /// `value` lies outside `parameter.range` (or is not finite).
    case outOfRange(TiltParameter, value: Double)
    /// `maxDegrees` is not greater than `deadZoneDegrees`.
    case maxNotAboveDeadZone(maxDegrees: Double, deadZoneDegrees: Double)

    /// What is wrong, with parameters named by `name` (the wire or the scenario names):
    /// "must lie in [0, 89] degrees", "must be greater than dead_zone_deg".
    public func reason(naming name: (TiltParameter) -> String) -> String {
        switch self {
        case .outOfRange(let parameter, _):
            let range = parameter.range
            return "must lie in [\(Self.format(range.lowerBound)), \(Self.format(range.upperBound))] \(parameter.unit)"
        case .maxNotAboveDeadZone:
            return "must be greater than \(name(.deadZone))"
        }
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// The parameter to blame.
    public var parameter: TiltParameter {
        switch self {
        case .outOfRange(let parameter, _): return parameter
        case .maxNotAboveDeadZone: return .maxAngle
        }
    }
}

extension TiltSettings {
    /// Checks every numeric parameter against its `TiltParameter.range` (in table order), then
    /// that `maxDegrees > deadZoneDegrees`.
    /// - Throws: `TiltSettingsError` for the first problem.
    public func check() throws(TiltSettingsError) {
        for parameter in TiltParameter.allCases {
            let value = parameter.value(in: self)
            guard parameter.range.contains(value) else { throw .outOfRange(parameter, value: value) }
        }
        guard maxDegrees > deadZoneDegrees else {
            throw .maxNotAboveDeadZone(maxDegrees: maxDegrees, deadZoneDegrees: deadZoneDegrees)
        }
    }
}
