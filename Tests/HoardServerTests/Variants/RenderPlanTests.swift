import Testing

@testable import HoardServer

/// The output sizes imgproxy's resizing types give a 200 × 100 source (the behaviour its own
/// processing tests check), and where crops and canvases sit.
@Suite("RenderPlan")
struct RenderPlanTests {
    /// (box width, box height) -> (output width, output height) for a 200 x 100 source.
    typealias Case = (box: (Int, Int), output: (Int, Int))

    static func outputs(
        _ fit: ProcessingOptions.Fit, enlarges: Bool = false, extend: Bool = false, cases: [Case]
    ) -> [String] {
        cases.compactMap { box, expected in
            var options = ProcessingOptions(width: box.0, height: box.1)
            options.fit = fit
            options.enlarges = enlarges
            options.extend = extend ? .init() : nil
            let plan = RenderPlan(width: 200, height: 100, options: options)
            let got = (plan.outputWidth, plan.outputHeight)
            return got == expected ? nil : "\(fit) \(box) enlarge \(enlarges) extend \(extend): \(got), not \(expected)"
        }
    }

    @Test("fit: inside the box, never enlarged unless asked; extend pads to the box")
    func fit() {
        #expect(Self.outputs(.fit, cases: [
            ((50, 50), (50, 25)), ((50, 20), (40, 20)), ((20, 50), (20, 10)), ((300, 300), (200, 100)),
            ((300, 50), (100, 50)), ((100, 300), (100, 50)), ((0, 50), (100, 50)), ((50, 0), (50, 25)),
            ((0, 200), (200, 100)), ((300, 0), (200, 100)),
        ]).isEmpty)
        #expect(Self.outputs(.fit, enlarges: true, cases: [
            ((50, 50), (50, 25)), ((300, 300), (300, 150)), ((300, 125), (250, 125)), ((250, 300), (250, 125)),
            ((0, 200), (400, 200)), ((300, 0), (300, 150)),
        ]).isEmpty)
        #expect(Self.outputs(.fit, extend: true, cases: [
            ((50, 50), (50, 50)), ((300, 300), (300, 300)), ((300, 125), (300, 125)), ((0, 50), (100, 50)),
            ((50, 0), (50, 25)), ((0, 200), (200, 200)), ((300, 0), (300, 100)),
        ]).isEmpty)
    }

    @Test("fill: covers the box and crops; a small source is cropped where larger, kept where smaller")
    func fill() {
        #expect(Self.outputs(.fill, cases: [
            ((50, 50), (50, 50)), ((50, 20), (50, 20)), ((20, 50), (20, 50)), ((300, 300), (200, 100)),
            ((300, 50), (200, 50)), ((100, 300), (100, 100)), ((0, 50), (100, 50)), ((50, 0), (50, 25)),
            ((0, 200), (200, 100)), ((300, 0), (200, 100)),
        ]).isEmpty)
        #expect(Self.outputs(.fill, enlarges: true, cases: [
            ((300, 300), (300, 300)), ((300, 125), (300, 125)), ((250, 300), (250, 300)), ((0, 200), (400, 200)),
            ((300, 0), (300, 150)),
        ]).isEmpty)
        #expect(Self.outputs(.fill, extend: true, cases: [
            ((300, 300), (300, 300)), ((300, 50), (300, 50)), ((100, 300), (100, 300)), ((0, 200), (200, 200)),
            ((300, 0), (300, 100)),
        ]).isEmpty)
    }

    @Test("fill-down: a source smaller than the box is cropped to the box's proportions")
    func fillDown() {
        #expect(Self.outputs(.fillDown, cases: [
            ((50, 50), (50, 50)), ((300, 300), (100, 100)), ((300, 125), (200, 83)), ((250, 300), (83, 100)),
            ((0, 50), (100, 50)), ((50, 0), (50, 25)), ((0, 200), (200, 100)), ((300, 0), (200, 100)),
        ]).isEmpty)
        #expect(Self.outputs(.fillDown, enlarges: true, cases: [
            ((300, 300), (300, 300)), ((300, 125), (300, 125)), ((0, 200), (400, 200)),
        ]).isEmpty)
    }

    @Test("force stretches to the box (a 0 side keeps the source's); auto fills like orientations, fits others")
    func forceAndAuto() {
        #expect(Self.outputs(.force, cases: [((50, 50), (50, 50)), ((0, 50), (200, 50)), ((300, 300), (200, 100))]).isEmpty)
        #expect(Self.outputs(.force, enlarges: true, cases: [((300, 300), (300, 300))]).isEmpty)
        // Landscape source, landscape box: fill. Landscape source, portrait box: fit.
        #expect(Self.outputs(.auto, cases: [((60, 40), (60, 40)), ((40, 60), (40, 20))]).isEmpty)
    }

    @Test("the pixel ratio scales the box; minimum sizes scale past it and the box crops them")
    func ratioAndMinimum() {
        var options = ProcessingOptions(width: 50, height: 50)
        options.pixelRatio = 2
        #expect(RenderPlan(width: 200, height: 100, options: options).outputWidth == 100)
        options = ProcessingOptions(width: 0, height: 0)
        options.minimumWidth = 150
        let plan = RenderPlan(width: 400, height: 200, options: options)
        #expect(plan.scaledWidth == 400)  // no box: the source's own size, already past the minimum
        options = ProcessingOptions(width: 100, height: 0)
        options.minimumHeight = 80
        let minimum = RenderPlan(width: 400, height: 200, options: options)
        #expect(minimum.scaledWidth == 160 && minimum.scaledHeight == 80)
        #expect(minimum.outputWidth == 100 && minimum.outputHeight == 80)  // cropped to the width asked
    }

    @Test("gravity places a fill's crop, offsets move it inwards, a focus point centres it")
    func gravity() {
        func kept(_ placement: ProcessingOptions.Placement) -> RenderPlan.Rectangle {
            var options = ProcessingOptions(width: 50, height: 50)
            options.fit = .fill
            options.placement = placement
            return RenderPlan(width: 200, height: 100, options: options).kept  // scaled to 100 x 50
        }
        #expect(kept(.init(.center)) == .init(x: 25, y: 0, width: 50, height: 50))
        #expect(kept(.init(.west)) == .init(x: 0, y: 0, width: 50, height: 50))
        #expect(kept(.init(.east)) == .init(x: 50, y: 0, width: 50, height: 50))
        #expect(kept(.init(.west, x: 10)).x == 10)
        #expect(kept(.init(.east, x: 10)).x == 40)
        #expect(kept(.init(.west, x: 0.2)).x == 20)  // a fraction of the scaled width
        #expect(kept(.init(.west, x: 500)).x == 50)  // clamped inside
        #expect(kept(.init(.focusPoint, x: 0.9, y: 0.5)).x == 50)
        #expect(kept(.init(.focusPoint, x: 0.3, y: 0.5)).x == 5)
    }

    @Test("crop before resize: pixels, fractions, the whole side; placed by its own gravity or the options'")
    func crop() {
        var options = ProcessingOptions(width: 0, height: 0)
        options.crop = .init(width: 100, height: 0.5, placement: .init(.southEast))
        var plan = RenderPlan(width: 400, height: 200, options: options)
        #expect(plan.source == .init(x: 300, y: 100, width: 100, height: 100))
        options.crop = .init(width: 0, height: 50)
        options.placement = .init(.north)
        plan = RenderPlan(width: 400, height: 200, options: options)
        #expect(plan.source == .init(x: 0, y: 0, width: 400, height: 50))
        options.crop = .init(width: 1000, height: 1000)
        #expect(RenderPlan(width: 400, height: 200, options: options).source.width == 400)
    }

    @Test("extend's gravity places the image on its canvas")
    func extendPlacement() {
        var options = ProcessingOptions(width: 300, height: 300)
        options.extend = .init(.south)
        let plan = RenderPlan(width: 200, height: 100, options: options)
        #expect(plan.canvas == .init(x: 50, y: 200, width: 300, height: 300))
    }
}
