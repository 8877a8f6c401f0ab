import CFuzzDriver

/// The `main` of a fuzz target: runs libFuzzer's driver on `callback`.
///
/// SwiftPM links every Swift executable with `main` renamed to `<Module>_main` (so that tests
/// can link executables), and a fuzz target has no `main` of its own: each target therefore
/// defines `@_cdecl("<Module>_main")` as a one-line call of this function.
public func runFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                      _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt {
    carousel_fuzz_run_driver(argc, argv, callback)
}
