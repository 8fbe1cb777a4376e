import Foundation

/// `openapi.yaml`, the contract of the inspection API, shipped as a resource of this module and
/// served at `GET /api/v1/openapi.yaml`. `.ci/run` checks the running server against it.
public enum OpenAPIDocument {
    /// The document's text, or nil when the resource bundle is missing (a binary copied away from
    /// its build folder).
    public static let yaml: [UInt8]? = {
        guard
            let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml", subdirectory: "Resources")
                ?? Bundle.module.url(forResource: "openapi", withExtension: "yaml"),
            let data = try? Data(contentsOf: url)
        else { return nil }
        return Array(data)
    }()
}
