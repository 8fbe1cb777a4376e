import Foundation
import PushMockTransport

/// The bodies Google's front end answers with outside the JSON API.
enum GooglePages {
    /// The HTML 404 page of Google's front end (unknown paths, the retired `/batch` and `/fcm/send`).
    static func notFound(path: String) -> HTTPServerResponse {
        let html = """
            <!DOCTYPE html>
            <html lang=en>
              <meta charset=utf-8>
              <meta name=viewport content="initial-scale=1, minimum-scale=1, width=device-width">
              <title>Error 404 (Not Found)!!1</title>
              <a href=//www.google.com/><span id=logo aria-label=Google></span></a>
              <p><b>404.</b> <ins>That’s an error.</ins>
              <p>The requested URL <code>\(escape(path))</code> was not found on this server.  <ins>That’s all we know.</ins>

            """
        return HTTPServerResponse(status: 404, headers: [("content-type", "text/html; charset=UTF-8")], body: Array(html.utf8))
    }

    /// A JSON answer as Google sends it.
    static func json(status: Int, _ text: String, extraHeaders: HTTPHeaderList = []) -> HTTPServerResponse {
        guard !extraHeaders.isEmpty else {
            return HTTPServerResponse(status: status, headers: jsonHeaders, body: Array(text.utf8))
        }
        var headers = jsonHeaders
        headers.fields += extraHeaders.fields
        return HTTPServerResponse(status: status, headers: headers, body: Array(text.utf8))
    }

    /// The same with the body already in bytes.
    static func json(status: Int, bytes: [UInt8], extraHeaders: HTTPHeaderList = []) -> HTTPServerResponse {
        guard !extraHeaders.isEmpty else {
            return HTTPServerResponse(status: status, headers: jsonHeaders, body: bytes)
        }
        var headers = jsonHeaders
        headers.fields += extraHeaders.fields
        return HTTPServerResponse(status: status, headers: headers, body: bytes)
    }

    private static let jsonHeaders: HTTPHeaderList = [("content-type", "application/json; charset=UTF-8")]

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
