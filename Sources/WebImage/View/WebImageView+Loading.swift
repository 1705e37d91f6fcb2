import Foundation

extension WebImageView {
    /// The URL of the current load.
    public var imageURL: URL? { webImageBinding.imageURL }
    /// The current load's progress.
    public var imageProgress: ImageLoadProgress { webImageBinding.imageProgress }

    /// Loads `url` into this view: SDWebImage's `sd_setImageWithURL`. A new call with the same
    /// operation key (the context's `setImageOperationKey`, else the view's type name) cancels the
    /// previous one (unless `.avoidAutoCancelImage`), so a late image never lands on a reused
    /// view; its completion reports `.cancelled`. The placeholder is shown at once (with
    /// `.delayPlaceholder`, only after a failure); with `.avoidAutoSetImage` the view is left alone
    /// and the completion gets the image. Completions run on the main actor.
    @discardableResult
    public func setImage(
        with url: URL?, placeholderImage: Image? = nil, options: WebImageOptions = [], context: WebImageContext? = nil,
        progress: ImageLoaderProgress? = nil, completed: WebImageCompletion? = nil
    ) -> CombinedOperation? {
        let binding = webImageBinding
        let key = context?.setImageOperationKey ?? String(describing: type(of: self))
        if !options.contains(.avoidAutoCancelImage) {
            binding.operations.removeValue(forKey: key)?.cancel()
        }
        binding.imageURL = url
        binding.imageProgress = ImageLoadProgress()
        if !options.contains(.delayPlaceholder) { image = placeholderImage }
        guard let url else {
            if options.contains(.delayPlaceholder) { image = placeholderImage }
            completed?(nil, nil, WebImageError.invalidURL, .none, true, nil)
            return nil
        }
        binding.imageIndicator?.startAnimatingIndicator()
        let manager = context?.customManager ?? WebImageManager.shared
        let current = OperationHolder()
        let operation = manager.loadImage(with: url, options: options, context: context, progress: { [weak self] received, expected, imageURL in
            progress?(received, expected, imageURL)
            Task { @MainActor [weak self] in
                guard let self, let operation = current.operation as? CombinedOperation, binding.operations[key] === operation else { return }
                webImageBinding.imageProgress = ImageLoadProgress(completedUnitCount: received, totalUnitCount: max(0, expected))
                webImageBinding.imageIndicator?.updateIndicatorProgress(webImageBinding.imageProgress.fractionCompleted)
            }
        }) { [weak self] image, data, error, cacheType, finished, imageURL in
            Task { @MainActor [weak self] in
                guard let self, let operation = current.operation as? CombinedOperation else { return }
                // Replaced by a newer load on this key: this one counts as cancelled.
                guard binding.operations[key] === operation || (error as? WebImageError) == .cancelled else {
                    completed?(nil, nil, WebImageError.cancelled, .none, true, imageURL)
                    return
                }
                if finished {
                    if binding.operations[key] === operation { binding.operations[key] = nil }
                    binding.imageIndicator?.stopAnimatingIndicator()
                    if error == nil { binding.imageProgress.completedUnitCount = max(binding.imageProgress.completedUnitCount, binding.imageProgress.totalUnitCount) }
                }
                if (error as? WebImageError) == .cancelled {
                    completed?(image, data, error, cacheType, finished, imageURL)
                    return
                }
                if let image, !options.contains(.avoidAutoSetImage) {
                    let transition = cacheType == .memory && !options.contains(.forceTransition) ? nil : binding.imageTransition
                    transition?.willSet(image, on: self, cacheType: cacheType)
                    self.image = image
                    transition?.didSet(image, on: self, cacheType: cacheType)
                } else if image == nil, finished, options.contains(.delayPlaceholder) {
                    self.image = placeholderImage
                }
                completed?(image, data, error, cacheType, finished, imageURL)
            }
        }
        current.set(operation)
        binding.operations[key] = operation
        return operation
    }

    /// Cancels this view's current load (its completion reports `.cancelled`).
    public func cancelCurrentImageLoad(operationKey: String? = nil) {
        let key = operationKey ?? String(describing: type(of: self))
        webImageBinding.operations.removeValue(forKey: key)?.cancel()
        webImageBinding.imageIndicator?.stopAnimatingIndicator()
    }
}
