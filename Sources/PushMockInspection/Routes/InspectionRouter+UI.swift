import Crypto
import Foundation

/// The web page at `/`: plain HTML, CSS and JavaScript modules from this module's resources (no
/// build step), with their content types, an `ETag` to revalidate against, and a
/// Content-Security-Policy that allows nothing but this origin.
extension InspectionRouter {
    /// The page says whether the API wants the inspection token, so that it asks before its first
    /// call instead of provoking a 401.
    func page(_ call: InspectionCall) throws -> InspectionAnswer {
        guard settings.token != nil, var file = UIAssets.file("index.html") else { return try asset("index.html", call) }
        file.bytes = Array(
            String(decoding: file.bytes, as: UTF8.self)
                .replacing(#"content="not-required""#, with: #"content="required""#).utf8)
        file.etag = String(file.etag.dropLast()) + "-token\""
        return serve(file, call)
    }

    func uiFile(_ call: InspectionCall) throws -> InspectionAnswer {
        try asset(call.parameter("file"), call)
    }

    private func asset(_ name: String, _ call: InspectionCall) throws -> InspectionAnswer {
        guard let file = UIAssets.file(name) else {
            throw InspectionError.notFound("no file \(name) in the web page's resources")
        }
        return serve(file, call)
    }

    private func serve(_ file: UIAssets.File, _ call: InspectionCall) -> InspectionAnswer {
        var headers: [InspectionResponse.Header] = [
            .init("etag", file.etag), .init("cache-control", "no-cache"), .init("x-content-type-options", "nosniff"),
        ]
        if file.contentType.hasPrefix("text/html") {
            headers.append(.init("content-security-policy", UIAssets.contentSecurityPolicy))
            headers.append(.init("referrer-policy", "no-referrer"))
        }
        if let tags = call.request.header("if-none-match"),
            tags.split(separator: ",").contains(where: { String($0).trimmingCharacters(in: " \t") == file.etag || $0 == "*" })
        {
            return .response(InspectionResponse(status: 304, contentType: file.contentType, headers: headers, body: []))
        }
        return .response(InspectionResponse(status: 200, contentType: file.contentType, headers: headers, body: file.bytes))
    }
}

/// The files of `Resources/ui`, read once.
enum UIAssets {
    struct File: Sendable {
        var bytes: [UInt8]
        var contentType: String
        var etag: String
    }

    /// Scripts, styles, images and connections from this origin only; no inline script, no frames.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static let files: [String: File] = {
        guard
            let directory = Bundle.module.url(forResource: "ui", withExtension: nil, subdirectory: "Resources")
                ?? Bundle.module.url(forResource: "ui", withExtension: nil),
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
        else { return [:] }
        var files: [String: File] = [:]
        for name in names {
            guard let type = contentType(of: name), let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path)
            else { continue }
            let digest = SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined()
            files[name] = File(bytes: Array(data), contentType: type, etag: "\"\(digest)\"")
        }
        return files
    }()

    static func file(_ name: String) -> File? {
        guard !name.contains("/"), !name.hasPrefix(".") else { return nil }
        return files[name]
    }

    static func contentType(of name: String) -> String? {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        default: nil
        }
    }
}
