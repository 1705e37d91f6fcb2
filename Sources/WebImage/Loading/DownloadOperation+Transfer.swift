import AsyncHTTPClient
import Foundation
import NIOCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why one attempt failed, and whether another may follow.
struct TransferFailure: Error {
    let error: any Error
    /// A transient failure: a retry may succeed.
    var isRetryable = false
    /// The server's `Retry-After`, in seconds.
    var retryAfter: TimeInterval?
    /// The bytes received so far may be completed with a range request (`If-Range` value).
    var resumeValidator: String?

    static func final(_ error: any Error) -> TransferFailure { TransferFailure(error: error) }
}

extension DownloadOperation {
    /// Runs the request with its retries and resumes, then decodes for every caller. A watchdog
    /// fails the download when it goes `stallTimeout` without new body bytes; a retry whose wait
    /// would end past that bound or past the callers' deadlines fails at once instead.
    func run() async {
        let config = environment.config
        let started = ContinuousClock.now
        state.withLock { $0.startedAt = started }
        let clock = DownloadProgressClock(stallLimit: .seconds(config.effectiveStallTimeout), started: started)
        let watchdog = Task { [url] in
            guard await clock.waitForStall() else { return }
            fail(Self.timedOut(url, "no new bytes for \(config.effectiveStallTimeout) s"))
        }
        environment.events.post(.start(url: url, request: request))
        DownloadObservability.logger.debug("download started", metadata: ["url": "\(url)"])
        var body = Data()
        var retries = 0
        var resumes = 0
        var resumeValidator: String?
        var outcome: Result<HTTPURLResponse, any Error>
        while true {
            let heldBefore = clock.mostReceived
            do {
                outcome = .success(try await transfer(into: &body, resumeValidator: resumeValidator, clock: clock))
                break
            } catch let failure as TransferFailure {
                let policy = config.retryPolicy
                guard failure.isRetryable, !Task.isCancelled else {
                    outcome = .failure(failure.error)
                    break
                }
                // A body that broke off after new bytes resumes at once: progress, not failure.
                if let validator = failure.resumeValidator, clock.mostReceived > heldBefore, resumes < policy.maxResumeCount {
                    resumes += 1
                    resumeValidator = validator
                    state.withLock { $0.metrics.resumeCount = resumes }
                    DownloadObservability.logger.debug("download resumed", metadata: ["url": "\(url)", "from": "\(body.count)"])
                    continue
                }
                guard retries < policy.maxRetryCount else {
                    outcome = .failure(failure.error)
                    break
                }
                resumeValidator = failure.resumeValidator
                if resumeValidator == nil { body.removeAll(keepingCapacity: true) }
                let delay = policy.delay(beforeRetry: retries, retryAfter: failure.retryAfter)
                let bound = [clock.stallDeadline, latestDeadline].compactMap { $0 }.min()
                if let bound, ContinuousClock.now + .seconds(delay) >= bound {
                    DownloadObservability.logger.debug("download not retried: the wait ends past its bound", metadata: [
                        "url": "\(url)", "error": "\(failure.error)", "delay": "\(delay)",
                    ])
                    outcome = .failure(failure.error)
                    break
                }
                retries += 1
                state.withLock { $0.metrics.retryCount = retries }
                environment.observability.retries.increment()
                DownloadObservability.logger.debug("download retried", metadata: [
                    "url": "\(url)", "error": "\(failure.error)", "delay": "\(delay)", "resume": "\(resumeValidator != nil)",
                ])
                do {
                    try await Task.sleep(for: .seconds(delay))
                } catch {
                    outcome = .failure(WebImageError.cancelled)
                    break
                }
            } catch {
                outcome = .failure(error)
                break
            }
        }
        watchdog.cancel()
        let elapsed = ContinuousClock.now - started
        environment.observability.duration.recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        // A partial image never follows the final one: the last partial decode ends first, and
        // bytes it has not seen are not decoded partially any more.
        let lastPartialDecode = state.withLock { state -> Task<Void, Never>? in
            state.partialDecode?.newerChunks = []
            return state.partialDecode?.task
        }
        await lastPartialDecode?.value
        switch outcome {
        case .success(let response):
            await finish(body: body, response: response)
        case .failure(let error):
            fail(Task.isCancelled ? WebImageError.cancelled : error)
        }
    }

    /// One attempt: sends the request (a range request when resuming), checks the response and
    /// streams the body into `body`.
    private func transfer(into body: inout Data, resumeValidator: String?, clock: DownloadProgressClock) async throws -> HTTPURLResponse {
        let config = environment.config
        var extraHeaders = key.validators?.conditionalHeaders ?? []
        if let resumeValidator, !body.isEmpty {
            extraHeaders += [("Range", "bytes=\(body.count)-"), ("If-Range", resumeValidator)]
        }
        guard let clientRequest = HTTPMessages.clientRequest(for: request, extraHeaders: extraHeaders) else {
            throw TransferFailure.final(WebImageError.invalidDownloadOperation)
        }
        let sent = ContinuousClock.now
        let exchange: HopByHopClient.Exchange
        do {
            exchange = try await environment.hops.execute(
                clientRequest, allowingInvalidCertificates: options.contains(.allowInvalidSSLCertificates),
                cookies: options.contains(.handleCookies) ? config.cookieStorage : nil
            )
        } catch let refusal as SourceRefusal {
            throw TransferFailure.final(WebImageError.sourceRefused(refusal))
        } catch let error as WebImageError {
            throw TransferFailure.final(error)
        } catch {
            throw Self.transportFailure(error, url: url, resumeValidator: nil)
        }
        // The client stays lent until the body is read (a pinned one is not evicted meanwhile).
        defer { exchange.lease.release() }
        let clientResponse = exchange.response
        let firstByte = ContinuousClock.now - sent
        guard var response = HTTPMessages.urlResponse(for: clientResponse, url: exchange.url) else {
            throw TransferFailure.final(WebImageError.invalidDownloadResponse)
        }
        if let modifier = environment.responseModifier {
            guard let modified = modifier.modifiedResponse(with: response) else {
                throw TransferFailure.final(WebImageError.invalidDownloadResponse)
            }
            response = modified
        }
        state.withLock { state in
            state.response = response
            state.metrics.timeToFirstByte = Double(firstByte.components.seconds) + Double(firstByte.components.attoseconds) * 1e-18
            state.metrics.redirectCount = exchange.redirectCount
        }
        let status = response.statusCode
        if status == 304, key.validators != nil { throw TransferFailure.final(WebImageError.cacheNotModified) }
        guard config.acceptableStatusCodes.contains(status) || (status == 206 && !body.isEmpty) else {
            let error = WebImageError.invalidDownloadStatusCode(statusCode: status, response: response)
            throw TransferFailure(
                error: error, isRetryable: DownloadRetryPolicy.isTransient(statusCode: status),
                retryAfter: DownloadRetryPolicy.retryAfterSeconds(response.value(forHTTPHeaderField: "Retry-After"))
            )
        }
        if let acceptable = config.acceptableContentTypes {
            let mimeType = HTTPMessages.mimeType(of: response)
            guard let mimeType, acceptable.contains(mimeType) else {
                throw TransferFailure.final(WebImageError.invalidDownloadContentType(mimeType: mimeType, response: response))
            }
        }
        if !body.isEmpty {
            if status == 206, HTTPMessages.contentRangeStart(of: response) == body.count {
                state.withLock { $0.metrics.resumed = true }
            } else {
                body.removeAll(keepingCapacity: true)   // the server sent the whole file again
            }
        }
        let length = HTTPMessages.contentLength(of: response).map { $0 + body.count }
        if let length, length > config.maximumResponseSize {
            throw TransferFailure.final(Self.tooLarge(url: url, limit: config.maximumResponseSize))
        }
        if let length { dropCallers(over: length) }
        if let length { body.reserveCapacity(length) }
        environment.events.post(.receiveResponse(url: url, response: response))
        let expected = length ?? 0
        reportProgress(received: body.count, expected: expected, force: true)
        let validator = Self.resumeValidator(of: response)
        do {
            for try await chunk in clientResponse.body {
                body.append(contentsOf: chunk.readableBytesView)
                clock.record(bodySize: body.count)
                environment.observability.bytes.increment(by: chunk.readableBytes)
                guard body.count <= config.maximumResponseSize else {
                    throw TransferFailure.final(Self.tooLarge(url: url, limit: config.maximumResponseSize))
                }
                dropCallers(over: body.count)
                let wantsPartial = reportProgress(received: body.count, expected: expected, force: false, newBytes: chunk.readableBytes)
                if wantsPartial { decodePartialIfWanted(body, chunk: chunk, expected: expected) }
            }
        } catch let failure as TransferFailure {
            throw failure
        } catch {
            throw Self.transportFailure(error, url: url, resumeValidator: body.isEmpty ? nil : validator)
        }
        reportProgress(received: body.count, expected: expected, force: true)
        return response
    }

    /// Counts `newBytes` and reports progress to the callers that asked for it: at most every
    /// `minimumProgressInterval` of the expected size, always when `force` is set or the size is
    /// unknown. One lock per chunk; returns whether a caller wants partial images.
    @discardableResult
    private func reportProgress(received: Int, expected: Int, force: Bool, newBytes: Int = 0) -> Bool {
        let interval = environment.config.effectiveProgressInterval
        let (callers, wantsPartial): ([Caller], Bool) = state.withLock { state in
            state.metrics.bytesReceived += newBytes
            guard isRunning(state.phase) else { return ([], false) }
            let wantsPartial = state.callers.contains { $0.options.contains(.progressiveLoad) }
            if !force, expected > 0, interval > 0,
               Double(received - state.lastProgressReported) < interval * Double(expected) {
                return ([], wantsPartial)
            }
            if force, received == state.lastProgressReported, received > 0 { return ([], wantsPartial) }
            state.lastProgressReported = received
            return (state.callers.filter { $0.callbacks.hasProgressHandler }, wantsPartial)
        }
        for caller in callers { caller.callbacks.reportProgress(received, expected, url) }
        return wantsPartial
    }

    private func isRunning(_ phase: Phase) -> Bool {
        if case .running = phase { return true }
        return false
    }

    /// The `If-Range` value that lets a dropped body resume: a strong entity tag, when the server
    /// also said it serves byte ranges.
    private static func resumeValidator(of response: HTTPURLResponse) -> String? {
        guard response.value(forHTTPHeaderField: "Accept-Ranges")?.lowercased().contains("bytes") == true,
              let validators = HTTPValidators(response: response), validators.hasStrongEntityTag
        else { return nil }
        return validators.entityTag
    }

    static func tooLarge(url: URL, limit: Int) -> URLError {
        URLError(.dataLengthExceedsMaximum, userInfo: [
            NSURLErrorFailingURLErrorKey: url, NSLocalizedDescriptionKey: "the response is larger than \(limit) bytes",
        ])
    }

    /// A transport failure; timeouts and dropped connections may be retried, refused connections,
    /// unknown hosts, TLS failures and redirect loops may not.
    private static func transportFailure(_ error: any Error, url: URL, resumeValidator: String?) -> TransferFailure {
        if error is CancellationError || (error as? HTTPClientError) == .cancelled {
            return .final(WebImageError.cancelled)
        }
        let urlError = HTTPMessages.urlError(for: error, url: url)
        let retryable: Set<URLError.Code> = [.timedOut, .networkConnectionLost]
        return TransferFailure(error: urlError, isRetryable: retryable.contains(urlError.code), resumeValidator: resumeValidator)
    }

    /// Fails every caller with `error` and stops the transfer, unless it ended already (the
    /// callers of a cancelled or finished download know already).
    private func fail(_ error: any Error) {
        let (callers, transfer): ([Caller]?, Task<Void, Never>?) = state.withLock { state in
            guard case .running(let transfer) = state.phase else { return (nil, nil) }
            state.phase = .finished
            defer { state.callers = [] }
            return (state.callers, transfer)
        }
        guard let callers else { return }
        transfer?.cancel()
        DownloadObservability.logger.debug("download failed", metadata: ["url": "\(url)", "error": "\(error)"])
        recordTransferEnd(error: error)
        for caller in callers { caller.callbacks.finish(nil, nil, error, operation: self) }
        end()
    }
}
