/// The geometry of one rendering, worked out from the source's upright size before anything is
/// decoded, as imgproxy's resizing types define it: the part of the source kept (`crop`), the
/// size it is scaled to, the part of that kept (a fill's crop, a minimum size past the box), and
/// the canvas it is placed on (`extend`).
///
/// Invariant: every rectangle lies inside what it is cut from, and no side is below 1 pixel.
struct RenderPlan: Equatable {
    /// A rectangle in pixels.
    struct Rectangle: Equatable {
        var x, y, width, height: Int
    }

    /// The part of the upright source used.
    let source: Rectangle
    /// The size that part is scaled to.
    let scaledWidth: Int
    let scaledHeight: Int
    /// The part of the scaled image kept (centred for the smart gravity, which the renderer places
    /// by the image's detail: ``HoardImage/Image/smartCropOrigin(width:height:)``).
    let kept: Rectangle
    /// The canvas the kept part is placed on, and where (its x and y); `nil` when there is none.
    let canvas: Rectangle?

    /// The output's size.
    var outputWidth: Int { canvas?.width ?? kept.width }
    var outputHeight: Int { canvas?.height ?? kept.height }

    /// The plan for a source of `width` × `height` (upright) under `options`.
    init(width: Int, height: Int, options: ProcessingOptions) {
        let ratio = options.pixelRatio
        // 1. The crop of the source, in source pixels.
        let crop = options.crop
        let cropWidth = crop.map { Self.side($0.width, of: width) } ?? width
        let cropHeight = crop.map { Self.side($0.height, of: height) } ?? height
        let cropPlacement = crop?.placement ?? options.placement
        let (cropX, cropY) = Self.position(
            inner: (cropWidth, cropHeight), outer: (width, height), placement: cropPlacement, ratio: 1)
        source = Rectangle(x: cropX, y: cropY, width: cropWidth, height: cropHeight)

        // 2. The scale.
        let boxWidth = options.outputWidth
        let boxHeight = options.outputHeight
        var fit = options.fit
        if fit == .auto {
            fit = boxWidth > 0 && boxHeight > 0 && (cropWidth >= cropHeight) != (boxWidth >= boxHeight) ? .fit : .fill
        }
        let widthScale = boxWidth > 0 ? Double(boxWidth) / Double(cropWidth) : nil
        let heightScale = boxHeight > 0 ? Double(boxHeight) / Double(cropHeight) : nil
        var scaleX: Double
        var scaleY: Double
        switch (fit, widthScale, heightScale) {
        case (.force, _, _):
            scaleX = widthScale ?? 1
            scaleY = heightScale ?? 1
        case (_, let w?, let h?):
            scaleX = fit == .fit ? min(w, h) : max(w, h)
            scaleY = scaleX
        case (_, let w?, nil):
            scaleX = w
            scaleY = w
        case (_, nil, let h?):
            scaleX = h
            scaleY = h
        case (_, nil, nil):
            scaleX = ratio
            scaleY = ratio
        }
        let minimumWidth = options.minimumWidth > 0 ? Self.scaled(options.minimumWidth, by: ratio) : 0
        let minimumHeight = options.minimumHeight > 0 ? Self.scaled(options.minimumHeight, by: ratio) : 0
        if fit != .force {
            let least = max(
                minimumWidth > 0 ? Double(minimumWidth) / Double(cropWidth) : 0,
                minimumHeight > 0 ? Double(minimumHeight) / Double(cropHeight) : 0)
            scaleX = max(scaleX, least)
            scaleY = max(scaleY, least)
        }
        if !options.enlarges {
            scaleX = min(scaleX, 1)
            scaleY = min(scaleY, 1)
        }
        scaledWidth = Self.scaled(cropWidth, by: scaleX)
        scaledHeight = Self.scaled(cropHeight, by: scaleY)

        // 3. What is kept: no more than the box, and for fill-down the box's proportions.
        var keptWidth = boxWidth > 0 ? min(boxWidth, scaledWidth) : scaledWidth
        var keptHeight = boxHeight > 0 ? min(boxHeight, scaledHeight) : scaledHeight
        if fit == .fillDown, boxWidth > 0, boxHeight > 0, keptWidth < boxWidth || keptHeight < boxHeight {
            let boxRatio = Double(boxWidth) / Double(boxHeight)
            if Double(keptWidth) / Double(keptHeight) > boxRatio {
                keptWidth = max(1, min(keptWidth, Int((Double(keptHeight) * boxRatio).rounded())))
            } else {
                keptHeight = max(1, min(keptHeight, Int((Double(keptWidth) / boxRatio).rounded())))
            }
        }
        let (keptX, keptY) = Self.position(
            inner: (keptWidth, keptHeight), outer: (scaledWidth, scaledHeight), placement: options.placement,
            ratio: ratio)
        kept = Rectangle(x: keptX, y: keptY, width: keptWidth, height: keptHeight)

        // 4. The canvas.
        if let extend = options.extend {
            let canvasWidth = max(boxWidth > 0 ? boxWidth : keptWidth, keptWidth)
            let canvasHeight = max(boxHeight > 0 ? boxHeight : keptHeight, keptHeight)
            if canvasWidth > keptWidth || canvasHeight > keptHeight {
                let (x, y) = Self.position(
                    inner: (keptWidth, keptHeight), outer: (canvasWidth, canvasHeight), placement: extend, ratio: ratio)
                canvas = Rectangle(x: x, y: y, width: canvasWidth, height: canvasHeight)
            } else {
                canvas = nil
            }
        } else {
            canvas = nil
        }
    }

    /// A crop's side: pixels when at least 1 (at most the source's), a fraction below 1, all of it at 0.
    private static func side(_ value: Double, of whole: Int) -> Int {
        if value == 0 { return whole }
        let pixels = value >= 1 ? Int(value.rounded()) : Int((Double(whole) * value).rounded())
        return max(1, min(whole, pixels))
    }

    /// Where an `inner` rectangle sits in an `outer` one by `placement` (offsets inwards from the
    /// gravity's edges; pixel offsets times `ratio`), clamped inside.
    static func position(
        inner: (width: Int, height: Int), outer: (width: Int, height: Int), placement: ProcessingOptions.Placement,
        ratio: Double
    ) -> (x: Int, y: Int) {
        let spareX = outer.width - inner.width
        let spareY = outer.height - inner.height
        var x: Int
        var y: Int
        if placement.gravity == .focusPoint {
            x = Int((Double(outer.width) * placement.x).rounded()) - inner.width / 2
            y = Int((Double(outer.height) * placement.y).rounded()) - inner.height / 2
        } else {
            let offsetX = offset(placement.x, side: outer.width, ratio: ratio)
            let offsetY = offset(placement.y, side: outer.height, ratio: ratio)
            switch placement.gravity {
            case .west, .northWest, .southWest: x = offsetX
            case .east, .northEast, .southEast: x = spareX - offsetX
            default: x = spareX / 2 + offsetX
            }
            switch placement.gravity {
            case .north, .northEast, .northWest: y = offsetY
            case .south, .southEast, .southWest: y = spareY - offsetY
            default: y = spareY / 2 + offsetY
            }
        }
        return (max(0, min(x, spareX)), max(0, min(y, spareY)))
    }

    private static func offset(_ value: Double, side: Int, ratio: Double) -> Int {
        abs(value) >= 1 ? Int((value * ratio).rounded()) : Int((Double(side) * value).rounded())
    }

    private static func scaled(_ side: Int, by scale: Double) -> Int {
        max(1, Int((Double(side) * scale).rounded()))
    }
}
