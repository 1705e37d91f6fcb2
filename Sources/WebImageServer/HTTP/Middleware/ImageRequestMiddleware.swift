import Hummingbird

/// The middleware an image request is answered behind, in their order: the request ID (outermost:
/// it writes a failure's response), the access log, the metrics and, with `SECRET`, the bearer
/// check. One value calling each in turn, so that the router's image routes and the image lane
/// (`ImageServerResponder`) run the same chain, and a request runs it without a responder an
/// element.
struct ImageRequestMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: RequestMetricsMiddleware<Context>
    let secret: BearerSecretMiddleware<Context>?

    init(metrics: ServerMetrics, secret: String?) {
        self.metrics = RequestMetricsMiddleware(metrics: metrics)
        self.secret = secret.map { BearerSecretMiddleware(secret: $0) }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await RequestIDMiddleware().handle(request, context: context) { request, context in
            try await AccessLogMiddleware().handle(request, context: context) { request, context in
                try await metrics.handle(request, context: context) { request, context in
                    guard let secret else { return try await next(request, context) }
                    return try await secret.handle(request, context: context, next: next)
                }
            }
        }
    }
}
