import Foundation
import NIOCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The partial decode of a progressive load: one coder instance for the whole transfer, at
/// most one decode running at a time.
struct PartialDecode {
    let coder: any ProgressiveImageCoder
    let options: ImageCoderOptions
    var task: Task<Void, Never>?
    /// The chunks that arrived while a decode ran, which with the decode's bytes make the newest
    /// body: decoded next, so the last piece is not skipped. Chunks, not the body: a copy of the
    /// body kept here would make the transfer's next append copy the whole body, once a chunk.
    var newerChunks: [ByteBuffer] = []
    /// The running decode's bytes and `newerChunks`: the body's size while it only grew.
    var heldCount = 0
}

extension DownloadOperation {
    /// After the transfer: decrypts the body, then decodes it for the callers, including those
    /// that join meanwhile, and completes them. One decode serves every caller asking for the same
    /// options, and callers asking for smaller thumbnails get them made from it (SharedDecodes).
    func finish(body: Data, response: HTTPURLResponse) async {
        let transferring = state.withLock { isRunningPhase($0.phase) }
        guard transferring else { return }
        recordTransferEnd(error: nil)
        let decryptor = environment.decryptor
        let data: Data? = decryptor == nil ? body : try? await BlockingPool.run { decryptor?.decryptedData(with: body, response: response) }
        guard let data, !data.isEmpty else {
            completeAll(error: WebImageError.badImageData)
            return
        }
        let started = state.withLock { state -> Bool in
            guard isRunningPhase(state.phase) else { return false }
            state.phase = .finishing(data: data)
            return true
        }
        guard started else { return }
        var decodes = SharedDecodes()
        var ended = false
        while !ended {
            let batch: [Caller] = state.withLock { state in
                let batch = state.callers
                state.callers = []
                if batch.isEmpty { state.phase = .finished }
                return batch
            }
            if batch.isEmpty {
                end()
                break
            }
            // The largest size each family of callers asks for first, so the smaller ones are made from it.
            let shared = batch.filter(\.decodes).compactMap { caller in
                SharedDecodes.coder(of: caller.context).map { (options: caller.coderOptions, coder: $0) }
            }
            for first in SharedDecodes.decodeFirst(shared) where decodes.source(for: first.options, coder: first.coder) == nil {
                let context = batch.first { $0.coderOptions == first.options && SharedDecodes.coder(of: $0.context) == first.coder }?.context
                decodes.record(await Self.decode(data, url: url, options: first.options, context: context), options: first.options, coder: first.coder)
            }
            for (index, caller) in batch.enumerated() {
                let result: Result<Image?, WebImageError> = caller.decodes
                    ? await result(for: caller, data: data, decodes: &decodes).map { $0 } : .success(nil)
                // With no caller waiting after this one, the download ends before the last
                // completion: a caller that has its image sees the downloader done with it.
                if index == batch.count - 1 {
                    ended = state.withLock { state in
                        guard state.callers.isEmpty else { return false }
                        state.phase = .finished
                        return true
                    }
                    if ended {
                        DownloadObservability.logger.debug("download finished", metadata: ["url": "\(url)", "bytes": "\(data.count)"])
                        end()
                    }
                }
                switch result {
                case .success(let image): caller.callbacks.finish(image, data, nil, operation: self)
                case .failure(let error): caller.callbacks.finish(nil, nil, error, operation: self)
                }
            }
        }
    }

    /// The image for `caller`: one decoded with its options, a thumbnail made from a larger
    /// decode of the same bytes, or a decode of its own (kept for the callers after it).
    private func result(for caller: Caller, data: Data, decodes: inout SharedDecodes) async -> Result<Image, WebImageError> {
        let coder = SharedDecodes.coder(of: caller.context)
        let options = caller.coderOptions
        switch coder.flatMap({ decodes.source(for: options, coder: $0) }) {
        case .decoded(let result):
            return result
        case .larger(let image):
            let box = options.decodeThumbnailPixelSize
            if let thumbnail = try? await BlockingPool.run({ SharedDecodes.thumbnail(of: image, fitting: box) }) ?? nil {
                return .success(thumbnail)
            }
        case nil:
            break
        }
        let result = await Self.decode(data, url: url, options: options, context: caller.context)
        if let coder { decodes.record(result, options: options, coder: coder) }
        return result
    }

    private static func decode(_ data: Data, url: URL, options: ImageCoderOptions, context: WebImageContext?) async -> Result<Image, WebImageError> {
        do {
            return .success(try await BlockingPool.run { () throws(WebImageError) -> Image in
                try ImageDecoding.decode(data, name: url.absoluteString, options: options, context: context)
            })
        } catch let error as WebImageError {
            return .failure(error)
        } catch {
            return .failure(.badImageData)
        }
    }

    private func isRunningPhase(_ phase: Phase) -> Bool {
        if case .running = phase { return true }
        return false
    }

    /// Fails every caller with `error` after a finished transfer (bad data).
    private func completeAll(error: WebImageError) {
        let callers: [Caller]? = state.withLock { state in
            guard isRunningPhase(state.phase) else { return nil }
            state.phase = .finished
            defer { state.callers = [] }
            return state.callers
        }
        guard let callers else { return }
        for caller in callers { caller.callbacks.finish(nil, nil, error, operation: self) }
        end()
    }

    /// With a caller asking for `.progressiveLoad` and no decryptor: starts a partial decode of
    /// the bytes so far (`body`, which ends with `chunk`) unless one is running; then keeps
    /// `chunk` for the next. The coder is the shared coders' last progressive coder that takes
    /// the first bytes (SDWebImage's rule).
    func decodePartialIfWanted(_ body: Data, chunk: ByteBuffer, expected: Int) {
        guard environment.decryptor == nil, expected == 0 || body.count < expected else { return }
        state.withLock { state in
            guard let first = state.callers.first(where: { $0.options.contains(.progressiveLoad) }) else { return }
            if state.partialDecode == nil {
                guard let coder = Self.progressiveCoder(for: body, options: first.coderOptions) else { return }
                state.partialDecode = PartialDecode(coder: coder, options: first.coderOptions)
            }
            guard let partial = state.partialDecode else { return }
            guard partial.task == nil else {
                if body.count == partial.heldCount + chunk.readableBytes {
                    state.partialDecode?.newerChunks.append(chunk)
                    state.partialDecode?.heldCount = body.count
                } else {
                    // The body started again (a retry): what is held is not its start.
                    state.partialDecode?.newerChunks = []
                    state.partialDecode?.heldCount = -1
                }
                return
            }
            let coder = partial.coder
            let options = partial.options
            state.partialDecode?.heldCount = body.count
            // The task's copy of `body` is the one snapshot of this decode (the next append copies).
            state.partialDecode?.task = Task { await self.runPartialDecode(body, coder: coder, options: options) }
        }
    }

    private func runPartialDecode(_ data: Data, coder: any ProgressiveImageCoder, options: ImageCoderOptions) async {
        state.withLock { state in
            state.metrics.partialDecodeCount += 1
            state.metrics.partialDecodeBytes += data.count
        }
        let image = try? await BlockingPool.run { () -> Image? in
            coder.updateIncrementalData(data, finished: false)
            return coder.incrementalDecodedImage(options: options)
        }
        let (callers, newerChunks): ([Caller], [ByteBuffer]) = state.withLock { state in
            guard isRunningPhase(state.phase) else {
                state.partialDecode?.task = nil
                return ([], [])
            }
            let newerChunks = state.partialDecode?.newerChunks ?? []
            state.partialDecode?.newerChunks = []
            if newerChunks.isEmpty { state.partialDecode?.task = nil }
            return (state.callers.filter { $0.options.contains(.progressiveLoad) }, newerChunks)
        }
        if let image = image ?? nil, image.isIncremental {
            for caller in callers { caller.callbacks.deliverPartial(image, data: nil) }
        }
        // Still the running task (the transfer waits for it before finishing): decode the newest
        // bytes, put together once.
        guard !newerChunks.isEmpty else { return }
        var newer = Data(capacity: data.count + newerChunks.reduce(0) { $0 + $1.readableBytes })
        newer.append(data)
        for chunk in newerChunks { newer.append(contentsOf: chunk.readableBytesView) }
        await runPartialDecode(newer, coder: coder, options: options)
    }

    private static func progressiveCoder(for data: Data, options: ImageCoderOptions) -> (any ProgressiveImageCoder)? {
        for coder in ImageCodersManager.shared.coders.reversed() {
            guard let progressive = coder as? any ProgressiveImageCoder, progressive.canIncrementalDecode(from: data) else { continue }
            return type(of: progressive).init(incrementalWithOptions: options)
        }
        return nil
    }
}
