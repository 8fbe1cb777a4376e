import PushMockCore
import PushMockStore

/// `/livez`, `/readyz`, `/metrics`, `/api/v1/openapi.yaml` and `POST /api/v1/reset`.
extension InspectionRouter {
    func metrics() async -> InspectionAnswer {
        // Query parameters (a scraper's, or anything) are ignored here.
        .response(InspectionResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: await control.metrics()))
    }

    static func openAPI() throws -> InspectionAnswer {
        guard let yaml = OpenAPIDocument.yaml else { throw InspectionError(500, "openapi.yaml is missing from the PushMock resource bundle") }
        return .response(InspectionResponse(status: 200, contentType: "application/yaml", body: yaml))
    }

    func reset() async throws -> InspectionAnswer {
        try await control.reset()
        webPush.removeAll()
        return .response(.json(200, ResetResult(reset: true)))
    }
}

extension InspectionResponse {
    /// A health answer: `/livez` is `ok` while the process serves requests, `/readyz` `ready` once
    /// every listener is bound and the configuration loaded.
    static func health(_ status: String) -> InspectionResponse {
        .json(200, HealthStatus(status: status))
    }
}

extension InspectionRouter {
    /// `/readyz`: 200 while the store takes writes; 503 while they fail (pushes are still answered
    /// and queued, so a load balancer can route around this instance).
    func readiness() async -> InspectionAnswer {
        let statistics = await store.statistics()
        let health = HealthStatus(
            status: statistics.failure == nil ? "ready" : "store-failing", store: statistics.failure ?? "ok",
            queued: statistics.queued, dropped: statistics.dropped
        )
        return .response(.json(statistics.failure == nil ? 200 : 503, health))
    }
}
