import FuzzSupport
import MotionFusion

/// libFuzzer entry point for `MountMatrix(parsing:)` (the kernel's `in_accel_mount_matrix` and
/// udev's `ACCEL_MOUNT_MATRIX`, `"a, b, c; d, e, f; g, h, i"`).
///
/// Checked: no crash or memory error; a matrix that parses has nine finite entries and no
/// all-zero row, and its `description` parses back to the same matrix.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMountMatrix(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let matrix: MountMatrix
    do {
        matrix = try MountMatrix(parsing: text)
    } catch {
        _ = error.description
        return 0
    }
    for row in [matrix.rows.0, matrix.rows.1, matrix.rows.2] {
        guard row.x.isFinite, row.y.isFinite, row.z.isFinite else { fuzzFailure("non-finite entry in \(matrix)") }
        guard row.x != 0 || row.y != 0 || row.z != 0 else { fuzzFailure("all-zero row accepted in \(matrix)") }
    }
    do {
        let again = try MountMatrix(parsing: matrix.description)
        guard again == matrix else { fuzzFailure("'\(matrix)' reads back as '\(again)'") }
    } catch {
        fuzzFailure("description '\(matrix)' does not parse: \(error)")
    }
    return 0
}

/// The executable's entry point (see `runFuzzer`).
@_cdecl("FuzzMountMatrix_main")
public func FuzzMountMatrixMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzMountMatrix)
}
