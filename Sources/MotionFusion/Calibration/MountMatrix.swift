/// A sensor mount matrix: the 3×3 rotation (or reflection) from the chip's axes to the device
/// frame, as the kernel's `in_accel_mount_matrix` / `mount_matrix` attribute and udev's
/// `ACCEL_MOUNT_MATRIX` give it: `"a, b, c; d, e, f; g, h, i"` (rows separated by `;`,
/// entries by `,`), so that `v_device = M · v_chip`.
///
/// The accelerometer is mapped with `M`; the gyroscope with `det(M) · M`, because angular
/// rate is a pseudo-vector: under a reflection (det = −1, common in hwdb) it picks up the sign
/// of the determinant, which keeps gyro and accelerometer in one right-handed frame (docs/FUSION.md "2. Mount matrix").
public struct MountMatrix: Equatable, Sendable, CustomStringConvertible {
    /// Rows of the matrix.
    public var rows: (Vector3, Vector3, Vector3)

    public static let identity = MountMatrix(rows: (Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)))

    public init(rows: (Vector3, Vector3, Vector3)) { self.rows = rows }

    /// Parses the kernel text. Whitespace (spaces, tabs, a trailing newline) is ignored around
    /// entries and rows.
    /// - Throws: `MountMatrixError` naming the text when there are not 3 rows of 3 entries, an
    ///   entry is not a finite number, or a row is all zero (the matrix would drop an axis).
    public init(parsing text: String) throws(MountMatrixError) {
        let rowTexts = text.split(separator: ";", omittingEmptySubsequences: false)
        guard rowTexts.count == 3 else { throw .shape(text: text) }
        var rows: [Vector3] = []
        for (r, rowText) in rowTexts.enumerated() {
            let entries = rowText.split(separator: ",", omittingEmptySubsequences: false)
            guard entries.count == 3 else { throw .shape(text: text) }
            var values: [Double] = []
            for entry in entries {
                let trimmed = entry.trimmingWhitespace
                guard let v = Double(trimmed), v.isFinite else {
                    throw .notANumber(text: text, entry: String(trimmed))
                }
                values.append(v)
            }
            let row = Vector3(values[0], values[1], values[2])
            if row == .zero { throw .zeroRow(text: text, row: r + 1) }
            rows.append(row)
        }
        self.rows = (rows[0], rows[1], rows[2])
    }

    /// Determinant (+1 for a rotation, −1 for a reflection).
    public var determinant: Double { rows.0.dot(rows.1.cross(rows.2)) }

    /// `M · v`.
    public func apply(to v: Vector3) -> Vector3 {
        Vector3(rows.0.dot(v), rows.1.dot(v), rows.2.dot(v))
    }

    /// Maps an accelerometer reading: `M · a`.
    public func applyToAccel(_ a: Vector3) -> Vector3 { apply(to: a) }

    /// Maps a gyroscope reading (a pseudo-vector): `det(M) · M · ω`.
    public func applyToGyro(_ w: Vector3) -> Vector3 {
        let d = determinant
        return apply(to: w) * (d < 0 ? -1 : 1)
    }

    /// Maps both parts of a sample (accel with `M`, gyro with `det(M) · M`).
    public func apply(to sample: IMUSample) -> IMUSample {
        IMUSample(timestampNanoseconds: sample.timestampNanoseconds, accel: applyToAccel(sample.accel),
                  gyro: sample.gyro.map(applyToGyro))
    }

    public static func == (a: MountMatrix, b: MountMatrix) -> Bool {
        a.rows.0 == b.rows.0 && a.rows.1 == b.rows.1 && a.rows.2 == b.rows.2
    }

    /// The kernel text form, e.g. `"1, 0, 0; 0, 1, 0; 0, 0, 1"`.
    public var description: String {
        func f(_ v: Double) -> String {
            v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
        }
        return [rows.0, rows.1, rows.2].map { "\(f($0.x)), \(f($0.y)), \(f($0.z))" }.joined(separator: "; ")
    }
}

/// Why a mount-matrix text was refused; each case carries the whole text.
public enum MountMatrixError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not three `;`-separated rows of three `,`-separated entries.
    case shape(text: String)
    /// An entry is not a finite number.
    case notANumber(text: String, entry: String)
    /// Row `row` (1-based) is all zero.
    case zeroRow(text: String, row: Int)

    public var description: String {
        switch self {
        case let .shape(text): return "mount matrix '\(text)': expected 3 rows of 3 numbers ('a, b, c; d, e, f; g, h, i')"
        case let .notANumber(text, entry): return "mount matrix '\(text)': '\(entry)' is not a number"
        case let .zeroRow(text, row): return "mount matrix '\(text)': row \(row) is all zero"
        }
    }
}

extension Substring {
    var trimmingWhitespace: Substring {
        var s = self
        while let c = s.first, c == " " || c == "\t" || c == "\n" || c == "\r" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\n" || c == "\r" { s = s.dropLast() }
        return s
    }
}
