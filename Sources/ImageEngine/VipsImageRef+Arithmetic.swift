/// libvips' arithmetic, band by band and pixel by pixel, with Swift signatures. Each returns a
/// new lazy image whose band format follows libvips' rules (floating point for the functions).
extension VipsImageRef {
    /// This image times `other`, pixel by pixel and band by band (libvips' `multiply`; a
    /// one-band image multiplies every band of the other, and the smaller image is padded).
    public func multiplying(by other: VipsImageRef) throws(VipsError) -> VipsImageRef {
        try call("multiply", with: other, names: ("left", "right"))
    }

    /// This image plus `other`, pixel by pixel and band by band (libvips' `add`).
    public func adding(_ other: VipsImageRef) throws(VipsError) -> VipsImageRef {
        try call("add", with: other, names: ("left", "right"))
    }

    /// Each sample's absolute value (libvips' `abs`).
    public func absolute() throws(VipsError) -> VipsImageRef {
        try call("abs")
    }

    /// Each sample raised to the power `exponents` gives: one exponent for every band, or one
    /// a band (libvips' `math2_const` with `pow`).
    public func raisedToPower(_ exponents: [Double]) throws(VipsError) -> VipsImageRef {
        try call("math2_const", "math2=pow,c=\(Self.bandValues(exponents))")
    }

    /// e raised to each sample (libvips' `math` with `exp`).
    public func exponential() throws(VipsError) -> VipsImageRef {
        try call("math", "math=exp")
    }
}
