// The version Breakwater reports: `breakwater --version` and `breakwater_build_info{version}`.

/// What this build is.
public enum BuildInfo {
    /// Semantic version of this source tree; raised with each release.
    public static let version = "0.4.0"
}
